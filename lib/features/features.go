package features

import (
	"encoding/json"
)

// OutputNames are the outputs detect decides, in index order: "out"
// first, then alphabetical (upstream's package-info.json order).
var OutputNames = []string{"out", "bin", "dev", "doc", "include", "lib", "python", "sample", "static", "stubs"}

// LegacyOutputNames are the outputs of feature_<version>.json files.
var LegacyOutputNames = []string{"bin", "dev", "doc", "lib", "sample", "static"}

// Features is the detection result for one unpacked archive.
type Features struct {
	// Outputs maps every name of OutputNames to whether the tree needs it.
	Outputs map[string]bool `json:"outputs"`
	// CudaArchitectures, ProvidedLibs and NeededLibs use upstream's
	// grouping by lib/ subdirectory (see Grouped).
	CudaArchitectures Grouped `json:"cudaArchitectures"`
	ProvidedLibs      Grouped `json:"providedLibs"`
	NeededLibs        Grouped `json:"neededLibs"`
	// LibLayout is how lib/ is organised: "none", "files", "subdirs", or
	// "mixed" (files and subdirectories side by side, which upstream
	// refused; the groups then hold the files under ".").
	LibLayout         string    `json:"libLayout"`
	CudaVersionsInLib []string  `json:"cudaVersionsInLib"`
	Headers           []string  `json:"headers"`
	PythonModules     []string  `json:"pythonModules"`
	Libraries         []Library `json:"libraries"`
	NarHash           string    `json:"narHash"`
	// BuildRedist is what Nixpkgs' buildRedist needs for this archive
	// (outputs to declare, stubs hook, FHS references), simulated with
	// the CUDA major of the archive's variant when it has one. Absent from
	// what the detector writes (facts only): the aggregate and the CLI
	// add it (lib/buildredist.Complete).
	BuildRedist BuildRedistFacts `json:"buildRedist,omitzero"`
	// BuildRedistByCudaMajor simulates each lib/<major> directory of an
	// archive without a variant, for each cudaMajorVersion it can serve.
	BuildRedistByCudaMajor map[string]BuildRedistFacts `json:"buildRedistByCudaMajor,omitempty"`
	// Tree lists the archive for later simulations with other
	// declarations (check-nixpkgs).
	Tree Tree `json:"tree"`
	// Licence is the licence file at the top of the tree (LICENSE,
	// LICENSE.txt, ...); absent when there is none.
	Licence *LicenceText `json:"licence,omitempty"`
}

// LicenceText is a licence file: what tells two texts apart (SHA256) and
// what a reader recognises (FirstLine, the first line with more than
// white space). A file over the detector's bound has its size alone.
type LicenceText struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256,omitempty"`
	FirstLine string `json:"firstLine,omitempty"`
}

// Library is what one library file (or *.so-named link) holds.
type Library struct {
	Path string `json:"path"`
	// Kind: "shared", "static", "object", "linkerScript", "danglingSymlink",
	// or "other" (named like a library but neither ELF nor archive).
	Kind   string   `json:"kind"`
	Soname string   `json:"soname"`
	Needed []string `json:"needed"`
	// CudaArchitectures are what `cuobjdump FILE` lists (`arch =`): the
	// union of SASS and PTX, plus CUDA 13's kind 0x10.
	CudaArchitectures []string `json:"cudaArchitectures"`
	// SASSArchitectures are those of the cubins: code a GPU of exactly
	// that architecture (or, without the `a` suffix, a later minor one of
	// the same major) runs as is.
	SASSArchitectures []string `json:"sassArchitectures"`
	// PTXArchitectures are those of the PTX entries: what the driver can
	// JIT-compile for GPUs newer than every SASS architecture.
	PTXArchitectures []string `json:"ptxArchitectures"`
	// FatbinEntries are the distinct fatbin entry headers with their
	// count: raw kind, SM and flags, kept so that bits not understood
	// yet can be read later without detecting again.
	FatbinEntries []FatbinEntry `json:"fatbinEntries"`
	// FatbinEntriesOmitted counts the entries of the groups past the
	// first 256 (facts.MaxFatbinGroups), which are not listed.
	FatbinEntriesOmitted int `json:"fatbinEntriesOmitted,omitempty"`
	// FatbinWarnings name what in the fatbin entries detect does
	// not understand (an entry kind, a flag bit, a header size), with the
	// number of entries concerned; fatbinEntries shows them raw. Absent
	// when everything was understood.
	FatbinWarnings []string `json:"fatbinWarnings,omitempty"`
	// VersionDefinitions are the symbol versions a shared library
	// defines (.gnu.version_d without its base entry: Qt_6,
	// OPENSSL_3.0.0, GLIBCXX_3.4.29), in file order; absent when none.
	// With Comments, what the vendored-library check reads as evidence.
	VersionDefinitions []string `json:"versionDefinitions,omitempty"`
	// Comments are the distinct strings of a shared library's .comment
	// section, the compilers that built it ("GCC: (GNU) 10.3.1"), bounded
	// (elfinfo.MaxComments of elfinfo.MaxCommentLen bytes); absent when none.
	Comments []string `json:"comments,omitempty"`
	// RuntimeLoads are the libraries the file may load at run time
	// (dlopen) that its DT_NEEDED and DT_SONAME do not name: what its
	// .note.dlopen declares and the library names its read-only data
	// holds, each with its evidence (docs/runtime-dependencies.md);
	// absent when none. At most detector/dlopen.MaxLoads names, sorted.
	RuntimeLoads []RuntimeLoad `json:"runtimeLoads,omitempty"`
	// RuntimeLoadsOmitted counts the strings past that bound, not
	// looked at (absent when 0).
	RuntimeLoadsOmitted int  `json:"runtimeLoadsOmitted,omitempty"`
	Stub                bool `json:"stub"`
	// Error says why the file could not be fully read; detection goes on.
	Error string `json:"error,omitempty"`
}

// FatbinEntry describes the fatbin entries of a library that share one
// header shape.
type FatbinEntry struct {
	// Kind is the raw entry kind: 1 PTX, 2 ELF cubin; CUDA 13 also has
	// 0x10 (listed by cuobjdump) and 0x40 (not listed).
	Kind       int    `json:"kind"`
	SM         int    `json:"sm"`
	Flags      uint64 `json:"flags"`
	HeaderSize int    `json:"headerSize"`
	Count      int    `json:"count"`
}

// Grouped is either a sorted list (lib/ holds files) or a map from lib/
// subdirectory to a sorted list (lib/ holds subdirectories).
type Grouped struct {
	List   []string
	Groups map[string][]string
}

// MarshalJSON writes the list, or the map when there are groups.
func (g Grouped) MarshalJSON() ([]byte, error) {
	if g.Groups != nil {
		return json.Marshal(g.Groups)
	}
	if g.List == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(g.List)
}

// UnmarshalJSON reads either form.
func (g *Grouped) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		g.List = nil
		return json.Unmarshal(b, &g.Groups)
	}
	g.Groups = nil
	return json.Unmarshal(b, &g.List)
}

// RuntimeLoad is one library name a file may load at run time, with the
// evidence for it. Name is a soname (libnvrtc.so.13), or, when Glob is
// set, a template as the file writes it (libnvrtc.so.%d, the prefix
// libnvrtc.so.) with Glob the names it can expand to (libnvrtc.so.*):
// resolution matches Name, or Glob, against providedLibs, the driver's
// libraries and a soname index, and needs nothing else from the tree.
type RuntimeLoad struct {
	Name string `json:"name"`
	Glob string `json:"glob,omitempty"`
	// Confidence is the strongest evidence's: "declared" (.note.dlopen),
	// "high" (a string that is exactly a name or template), "medium" (an
	// absolute or relative path ending in the name; a name right after
	// binary data), "low" (a name inside other text: an error message,
	// a help text; not a load by itself).
	Confidence string `json:"confidence"`
	// Feature, Description and Priority are the .note.dlopen entry's
	// (priority "required", "recommended" or "suggested"), when it has
	// them.
	Feature     string `json:"feature,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    string `json:"priority,omitempty"`
	// Evidence lists where the name was found, the strongest first, then
	// in file order, at most detector/dlopen.MaxEvidence (a stronger
	// place replaces the weakest kept); EvidenceOmitted counts the rest.
	Evidence        []LoadEvidence `json:"evidence"`
	EvidenceOmitted int            `json:"evidenceOmitted,omitempty"`
}

// LoadEvidence is one place a runtime load's name was found.
type LoadEvidence struct {
	// Kind: "note" (a .note.dlopen entry), "soname" (a string that is
	// exactly the name), "template" (exactly a printf-style template),
	// "prefix" (exactly a name ending in ".so.", a version appended at
	// run time), "path" (a path whose last component is the name),
	// "nearBinary" (the name ends a string that starts right after
	// non-text bytes), "mention" (the name inside other text).
	Kind    string `json:"kind"`
	Section string `json:"section"`
	// Offset is the file offset of the string (of the note, for kind
	// note).
	Offset uint64 `json:"offset"`
	// String is the whole string (the note's JSON entry), cut to
	// detector/dlopen.MaxStringLen bytes of valid UTF-8.
	String string `json:"string"`
}
