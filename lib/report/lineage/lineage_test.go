package lineage_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func cudaRelease(t *testing.T, version string) *lineage.Release {
	t.Helper()
	m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cuda", "redistrib_"+version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return lineage.FromManifest("cuda", version, m)
}

func text(t *testing.T, l *lineage.Lineage) string {
	t.Helper()
	var b strings.Builder
	if err := l.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCUDA13_3 is the release of the issue, from NVIDIA's manifests
// alone: cuda_cccl becomes cccl (the same name, a new licence), six
// packages are dropped, and no other package is new.
func TestCUDA13_3(t *testing.T) {
	l := lineage.Compare(cudaRelease(t, "13.2.2"), cudaRelease(t, "13.3.0"), nil)
	t.Log(text(t, l))
	checkCCCLRename(t, l)
	checkDropped(t, l, "13.2.2", []string{"collectx_bringup", "cuda_nsight", "driver_assistant", "mft", "mft_autocomplete", "mft_oem"})
	if len(l.Added) != 0 {
		t.Errorf("added %+v; want none (cccl is the rename)", l.Added)
	}
	if len(l.LicenceChanges) != 1 || l.LicenceChanges[0] != (lineage.LicenceChange{Package: "cccl", From: "cuda_cccl", Old: "CUDA Toolkit", New: "CCCL EULA", OldAttr: "lib.licenses.nvidiaCudaRedist"}) {
		t.Errorf("licence changes %+v", l.LicenceChanges)
	}
	if len(l.Moves) != 0 {
		t.Errorf("moves %+v without trees", l.Moves)
	}
	out := text(t, l)
	for _, line := range []string{
		`- renamed: cuda_cccl -> cccl ("CXX Core Compute Libraries", `,
		`- dropped: mft_oem ("NVLink 5 MFT OEM"; last release 13.2.2, version `,
		`- licence of cuda_cccl -> cccl: "CUDA Toolkit" (lib.licenses.nvidiaCudaRedist) -> "CCCL EULA" (unknown to the licence table)`,
	} {
		if !strings.Contains(out, line) {
			t.Errorf("text lacks %q:\n%s", line, out)
		}
	}
}

// checkCCCLRename: the one rename is CUDA 13.3's cuda_cccl -> cccl, by
// the manifest's name.
func checkCCCLRename(t *testing.T, l *lineage.Lineage) {
	t.Helper()
	if r := l.Renamed; len(r) != 1 || r[0].From != "cuda_cccl" || r[0].To != "cccl" || r[0].Name != "CXX Core Compute Libraries" || r[0].OldVersion != "13.2.86" || r[0].NewVersion != "13.3.3.3.1" {
		t.Errorf("renamed %+v; want cuda_cccl -> cccl", l.Renamed)
	}
	if len(l.Renamed) == 1 && (len(l.Renamed[0].Evidence) != 1 || !strings.Contains(l.Renamed[0].Evidence[0], `the same name "CXX Core Compute Libraries"`)) {
		t.Errorf("rename evidence %q; want the manifest's name", l.Renamed[0].Evidence)
	}
}

// checkDropped: the dropped packages are want, each with its last
// release, last, and its version.
func checkDropped(t *testing.T, l *lineage.Lineage, last string, want []string) {
	t.Helper()
	var dropped []string
	for _, d := range l.Dropped {
		dropped = append(dropped, d.Package)
		if d.LastRelease != last || d.LastVersion == "" {
			t.Errorf("dropped %+v: want its last release %s and its version", d, last)
		}
	}
	if !slices.Equal(dropped, want) {
		t.Errorf("dropped %v; want %v", dropped, want)
	}
}

// TestCUDA13_0ManifestsAlone: without trees, libnvvm and cuda_crt are
// new packages; nothing says they came out of cuda_nvcc.
func TestCUDA13_0ManifestsAlone(t *testing.T) {
	l := lineage.Compare(cudaRelease(t, "12.9.2"), cudaRelease(t, "13.0.0"), nil)
	var added []string
	for _, a := range l.Added {
		added = append(added, a.Package)
	}
	for _, k := range []string{"libnvvm", "cuda_crt"} {
		if !slices.Contains(added, k) {
			t.Errorf("%s not new: %v", k, added)
		}
	}
	if len(l.Moves) != 0 || len(l.Renamed) != 0 {
		t.Errorf("moves %+v, renames %+v from the manifests alone", l.Moves, l.Renamed)
	}
}

// pkg makes a package with a tree (files; a file "x.so=soname" is a
// library with that soname).
func pkg(key, name string, files ...string) *lineage.Package {
	p := &lineage.Package{Key: key, Name: name, Version: "1", License: "CUDA Toolkit"}
	f := &features.Features{}
	for _, file := range files {
		path, soname, lib := strings.Cut(file, "=")
		f.Tree.Files = append(f.Tree.Files, path)
		if lib {
			f.Libraries = append(f.Libraries, features.Library{Path: path, Kind: "shared", Soname: soname})
		}
	}
	p.AddFeatures(f)
	return p
}

func release(redist, version string, pkgs ...*lineage.Package) *lineage.Release {
	r := &lineage.Release{Redist: redist, Version: version, Packages: map[string]*lineage.Package{}}
	for _, p := range pkgs {
		r.Packages[p.Key] = p
	}
	return r
}

// TestTreesDecide: renames, splits, merges and moves on trees written
// for the test, each with the evidence that decided it.
func TestTreesDecide(t *testing.T) {
	for _, tc := range treeCases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, lineage.Compare(tc.old, tc.new, nil))
		})
	}
}

// treeCases are TestTreesDecide's: two releases, and the check of what
// Compare makes of them.
var treeCases = []struct {
	name     string
	old, new *lineage.Release
	check    func(t *testing.T, l *lineage.Lineage)
}{
	{"rename by trees under another name", release("r", "1", pkg("a", "A", "lib/liba.so.1=liba.so.1", "include/a.h")),
		release("r", "2", pkg("b", "B", "lib/liba.so.1=liba.so.1", "include/a.h", "include/new.h")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Renamed) != 1 || l.Renamed[0].Evidence[0] != "trees: 2 of 3 files the same" || l.Renamed[0].Evidence[1] != "sonames: the same 1" {
				t.Errorf("renamed %+v", l.Renamed)
			}
		}},
	{"the same name, other trees: no rename", release("r", "1", pkg("a", "A", "include/a.h", "include/b.h")),
		release("r", "2", pkg("b", "A", "include/c.h", "include/d.h")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Renamed) != 0 || len(l.Dropped) != 1 || len(l.Added) != 1 {
				t.Errorf("renamed %+v, dropped %+v, added %+v", l.Renamed, l.Dropped, l.Added)
			}
		}},
	{"split into a new package, paths and sonames changed", release("r", "1", pkg("nvcc", "NVCC", "bin/nvcc", "nvvm/lib64/libnvvm.so=libnvvm.so.4", "nvvm/include/nvvm.h", "include/crt/host_config.h")),
		release("r", "2", pkg("nvcc", "NVCC", "bin/nvcc"), pkg("nvvm", "NVVM", "lib/libnvvm.so.4=libnvvm.so.4", "include/nvvm.h"),
			pkg("crt", "CRT", "include/crt/host_config.h")),
		func(t *testing.T, l *lineage.Lineage) {
			want := []lineage.Move{
				{Kind: "split", From: "nvcc", To: "crt", Files: []lineage.MovedFile{{Old: "include/crt/host_config.h", New: "include/crt/host_config.h", By: "path"}}, Sonames: []string{}, Evidence: []string{"trees: 1 files"}},
				{Kind: "split", From: "nvcc", To: "nvvm", Files: []lineage.MovedFile{{Old: "nvvm/include/nvvm.h", New: "include/nvvm.h", By: "name"}, {Old: "nvvm/lib64/libnvvm.so", New: "lib/libnvvm.so.4", By: "soname"}}, Sonames: []string{"libnvvm.so.4"}, Evidence: []string{"trees: 2 files", "sonames: 1"}},
			}
			if !equalMoves(l.Moves, want) {
				t.Errorf("moves %+v\nwant %+v", l.Moves, want)
			}
			if len(l.Added) != 2 {
				t.Errorf("added %+v: a split's new package is still new", l.Added)
			}
		}},
	{"merge of a dropped package", release("r", "1", pkg("a", "A", "include/a.h"), pkg("b", "B", "include/b.h")),
		release("r", "2", pkg("b", "B", "include/b.h", "include/a.h")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Moves) != 1 || l.Moves[0].Kind != "merge" || l.Moves[0].From != "a" || l.Moves[0].To != "b" {
				t.Errorf("moves %+v", l.Moves)
			}
		}},
	{"a file name common on one side is not matched", release("r", "1", pkg("a", "A", "x/README", "y/README", "keep")),
		release("r", "2", pkg("a", "A", "keep"), pkg("b", "B", "z/README")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Moves) != 0 {
				t.Errorf("moves %+v: README is not unique among a's lost files", l.Moves)
			}
		}},
	{"a path several packages hold is no evidence", release("r", "1", pkg("a", "A", "LICENSE", "a.h"), pkg("b", "B", "LICENSE", "b.h")),
		release("r", "2", pkg("b", "B", "LICENSE", "b.h"), pkg("c", "C", "LICENSE", "c.h")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Moves) != 0 {
				t.Errorf("moves %+v: LICENSE is in every package", l.Moves)
			}
		}},
	{"without the new tree nothing moves", release("r", "1", pkg("nvcc", "NVCC", "bin/nvcc", "include/crt/x.h")),
		release("r", "2", &lineage.Package{Key: "nvcc", Name: "NVCC"}, pkg("crt", "CRT", "include/crt/x.h")),
		func(t *testing.T, l *lineage.Lineage) {
			if len(l.Moves) != 0 {
				t.Errorf("moves %+v: nvcc's new tree is unknown", l.Moves)
			}
		}},
}

func equalMoves(a, b []lineage.Move) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Kind != y.Kind || x.From != y.From || x.To != y.To || !slices.Equal(x.Files, y.Files) || !slices.Equal(x.Sonames, y.Sonames) || !slices.Equal(x.Evidence, y.Evidence) {
			return false
		}
	}
	return true
}

// TestMovedToAnotherRedist: a package dropped by one redist and held by
// another (by key or by name) says where it went.
func TestMovedToAnotherRedist(t *testing.T) {
	old := release("cuda", "1", &lineage.Package{Key: "libcusparse_lt", Name: "cuSPARSELt"}, &lineage.Package{Key: "x", Name: "X"})
	new := release("cuda", "2", &lineage.Package{Key: "x", Name: "X"})
	others := []*lineage.Release{
		release("cusparselt", "0.8.0", &lineage.Package{Key: "libcusparse_lt", Name: "cuSPARSELt"}),
		release("cusparselt", "0.7.0", &lineage.Package{Key: "libcusparse_lt", Name: "cuSPARSELt"}),
		release("other", "3", &lineage.Package{Key: "renamed", Name: "cuSPARSELt"}),
	}
	l := lineage.Compare(old, new, others)
	if len(l.Dropped) != 1 || len(l.Dropped[0].MovedTo) != 2 {
		t.Fatalf("dropped %+v", l.Dropped)
	}
	if m := l.Dropped[0].MovedTo[0]; m != (lineage.Elsewhere{Redist: "cusparselt", Version: "0.7.0", Package: "libcusparse_lt", Evidence: "manifest: the same key"}) {
		t.Errorf("moved to %+v", m)
	}
	if m := l.Dropped[0].MovedTo[1]; m.Package != "renamed" || !strings.Contains(m.Evidence, "the same name") {
		t.Errorf("moved to %+v", m)
	}
	if !strings.Contains(text(t, l), "  - moved to redist cusparselt: libcusparse_lt in 0.7.0; evidence: manifest: the same key\n") {
		t.Errorf("text:\n%s", text(t, l))
	}
}

// TestTextEscapes: a name from a manifest cannot add a line to a commit
// message.
func TestTextEscapes(t *testing.T) {
	l := lineage.Compare(release("r", "1", &lineage.Package{Key: "a\nSigned-off-by: x", Name: "A"}), release("r", "2"), nil)
	if strings.Contains(text(t, l), "\nSigned-off-by") {
		t.Errorf("a newline of a key reached the text:\n%s", text(t, l))
	}
}

// TestLicenceTexts: packages grouped by the text of their licence file,
// and a new text under the same licence string is a licence change.
func TestLicenceTexts(t *testing.T) {
	withText := func(key, license, sum, first string) *lineage.Package {
		p := &lineage.Package{Key: key, Name: key, License: license}
		p.AddFeatures(&features.Features{Licence: &features.LicenceText{Path: "LICENSE", SHA256: sum, FirstLine: first}})
		return p
	}
	old := release("r", "1", withText("a", "CUDA Toolkit", "aaaa", "EULA"), withText("b", "CUDA Toolkit", "aaaa", "EULA"), withText("c", "X", "cccc", "X licence"))
	new := release("r", "2", withText("a", "CUDA Toolkit", "bbbb", "EULA, 2026"), withText("b", "CUDA Toolkit", "aaaa", "EULA"), withText("c", "X", "cccc", "X licence"))
	groups := lineage.GroupByText(old)
	if len(groups) != 2 || !slices.Equal(groups[0].Packages, []string{"a", "b"}) || groups[0].FirstLine != "EULA" || !slices.Equal(groups[1].Packages, []string{"c"}) {
		t.Errorf("groups %+v", groups)
	}
	l := lineage.Compare(old, new, nil)
	if len(l.LicenceChanges) != 1 || l.LicenceChanges[0].Package != "a" || l.LicenceChanges[0].NewText.SHA256 != "bbbb" {
		t.Fatalf("licence changes %+v", l.LicenceChanges)
	}
	if !strings.Contains(text(t, l), "  - text aaaa (EULA) -> bbbb (EULA, 2026)\n") {
		t.Errorf("text:\n%s", text(t, l))
	}
}
