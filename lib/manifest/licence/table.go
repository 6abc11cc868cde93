// Package licence maps the licence string of an NVIDIA manifest
// (a release's "license", with its text at "license_path" inside the
// archive) to the Nixpkgs licence attribute a package file should set,
// through one table whose every row says where it comes from, and counts
// the licence strings of a set of manifests (docs/licences.md).
//
// A string the table does not hold is unknown: Lookup says so, and no
// caller guesses an attribute for it.
package licence

import "sort"

// Entry is one row of the table: a manifest's licence string and the
// Nixpkgs attribute that names the same licence.
type Entry struct {
	// License is the manifest's "license" string, byte for byte.
	License string `json:"license"`
	// Attr is the Nix expression of the attribute, as a package file of
	// pkgs/development/cuda-modules writes it (lib.licenses.X for
	// Nixpkgs' own lib/licenses.nix, _cuda.lib.licenses.X for the CUDA
	// package set's _cuda/lib/licenses.nix).
	Attr string `json:"attr"`
	// Source is where the attribute is defined and the text it points to.
	Source string `json:"source"`
}

// Where Nixpkgs defines the attributes the table uses.
const (
	nixpkgsLicenses = "Nixpkgs lib/licenses.nix"
	cudaLicenses    = "Nixpkgs pkgs/development/cuda-modules/_cuda/lib/licenses.nix"
)

// table is every mapping this project vouches for. A row is here only
// when a Nixpkgs attribute names the licence the manifest names: the
// attribute's own name and URL point to the same agreement (cuDNN's,
// cuTENSOR's, ...), or the string is an SPDX identifier (MIT). The CUDA
// package set's licences file lists the other strings in a comment as
// having no attribute yet; they stay out of the table.
var table = []Entry{
	{"CUDA Toolkit", "lib.licenses.nvidiaCudaRedist",
		nixpkgsLicenses + ": nvidiaCudaRedist, the CUDA Toolkit EULA (docs.nvidia.com/cuda/eula), marked redistributable; buildRedist's default for the cuda redist. The EULA's Attachment A lists which CUDA components may be redistributed"},
	{"cudnn", "_cuda.lib.licenses.cudnn",
		cudaLicenses + ": cudnn, the cuDNN supplement to the NVIDIA SDK licence (docs.nvidia.com/deeplearning/cudnn/.../eula.html)"},
	{"cuTensor", "_cuda.lib.licenses.cutensor",
		cudaLicenses + ": cutensor, the cuTENSOR supplement (docs.nvidia.com/cuda/cutensor/latest/license.html)"},
	{"cuSPARSELt", "_cuda.lib.licenses.cusparse_lt",
		cudaLicenses + ": cusparse_lt, the cuSPARSELt supplement (docs.nvidia.com/cuda/cusparselt/license.html)"},
	{"TensorRT", "_cuda.lib.licenses.tensorrt",
		cudaLicenses + ": tensorrt, the TensorRT supplement (docs.nvidia.com/deeplearning/tensorrt/.../sla.html)"},
	{"MIT", "lib.licenses.mit",
		nixpkgsLicenses + ": mit, SPDX identifier MIT; the manifest's string is that identifier"},
}

// Table is a copy of the table, ordered by licence string.
func Table() []Entry {
	out := append([]Entry(nil), table...)
	sort.Slice(out, func(i, j int) bool { return out[i].License < out[j].License })
	return out
}

// Lookup finds the row of a manifest's licence string; false when the
// string is unknown to the table.
func Lookup(license string) (Entry, bool) {
	for _, e := range table {
		if e.License == license {
			return e, true
		}
	}
	return Entry{}, false
}

// Default is the licence Nixpkgs' buildRedist gives a package file of
// redist that sets no meta.license: nvidiaCudaRedist for the cuda redist,
// nvidiaCuda for every other (pkgs/development/cuda-modules/buildRedist,
// whose comment asks every package to set its own).
func Default(redist string) string {
	if redist == "cuda" {
		return "lib.licenses.nvidiaCudaRedist"
	}
	return "lib.licenses.nvidiaCuda"
}
