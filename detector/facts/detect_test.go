package facts_test

import (
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testnar"
)

type E = testarchive.Entry

var (
	F = testarchive.F
	X = testarchive.X
	D = testarchive.D
	L = testarchive.L
	B = testarchive.B
)

type img = testfatbin.Image

func detectEntries(t *testing.T, entries []E) *features.Features {
	t.Helper()
	root := t.TempDir()
	if err := testarchive.WriteTree(root, entries); err != nil {
		t.Fatal(err)
	}
	f, err := facts.Detect(root)
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	return f
}

// sharedLib is a shared object with a soname, needed libs and device code.
func sharedLib(soname string, needed []string, sms ...int) []byte {
	spec := testelf.Spec{Soname: soname, Needed: needed}
	if len(sms) > 0 {
		var imgs []img
		for _, sm := range sms {
			imgs = append(imgs, img{SM: sm})
		}
		spec.Sections = []testelf.Section{{Name: ".nv_fatbin", Data: testfatbin.Container(imgs...)}}
	}
	return testelf.Build(spec)
}

// outputs lists the true outputs, "out" first, as the index format does.
func outputs(m map[string]bool) []string {
	var out []string
	for _, name := range features.OutputNames {
		if m[name] {
			out = append(out, name)
		}
	}
	return out
}

func TestOutputs(t *testing.T) {
	so := sharedLib("libx.so.1", nil)
	tests := []struct {
		name    string
		entries []E
		want    []string
	}{
		{"empty tree", []E{F("LICENSE", "x")}, []string{"out"}},
		{"bin with an executable", []E{X("bin/nvcc", "")}, []string{"out", "bin"}},
		{"bin with only non-executable files (upstream said yes)", []E{F("bin/readme.txt", "")}, []string{"out"}},
		{"bin with a windows .exe", []E{F("bin/nvcc.exe", "")}, []string{"out", "bin"}},
		{"bin with a .dll", []E{F("bin/cudart64_12.dll", "")}, []string{"out", "bin"}},
		{"bin executable nested", []E{X("bin/crt/prelink", "")}, []string{"out", "bin"}},
		{"bin symlink to executable", []E{X("libexec/tool", ""), L("bin/tool", "../libexec/tool")}, []string{"out", "bin"}},
		{"empty bin dir", []E{D("bin")}, []string{"out"}},
		{"include gives dev and include", []E{F("include/cuda.h", "")}, []string{"out", "dev", "include"}},
		{"empty include", []E{D("include")}, []string{"out"}},
		{"lib/pkgconfig gives dev", []E{F("lib/pkgconfig/cuda.pc", "")}, []string{"out", "dev"}},
		{"share/pkgconfig gives dev", []E{F("share/pkgconfig/cuda.pc", "")}, []string{"out", "dev"}},
		{"lib/cmake gives dev", []E{F("lib/cmake/x/x-config.cmake", "")}, []string{"out", "dev"}},
		{"share/aclocal gives dev", []E{F("share/aclocal/x.m4", "")}, []string{"out", "dev"}},
		{"share/doc gives doc", []E{F("share/doc/x/README", "")}, []string{"out", "doc"}},
		{"share/man gives doc", []E{F("share/man/man1/x.1", "")}, []string{"out", "doc"}},
		{"share/info, gtk-doc, devhelp give doc", []E{F("share/info/x", ""), F("share/gtk-doc/y", ""), F("share/devhelp/z", "")}, []string{"out", "doc"}},
		{"lib with a .so", []E{B("lib/libx.so.1", so), L("lib/libx.so", "libx.so.1")}, []string{"out", "lib"}},
		{"lib with only versioned .so.N files", []E{B("lib/libx.so.1", so)}, []string{"out"}},
		{"lib .so nested in a subdirectory", []E{B("lib/12/libx.so", so)}, []string{"out", "lib"}},
		{"lib .so dangling symlink", []E{L("lib/libx.so", "libx.so.1")}, []string{"out"}},
		{"lib .a gives static", []E{F("lib/libx_static.a", "!<arch>\n")}, []string{"out", "static"}},
		{"lib .so and .a", []E{B("lib/libx.so", so), F("lib/libx.a", "!<arch>\n")}, []string{"out", "lib", "static"}},
		{"samples", []E{F("samples/x/main.cu", "")}, []string{"out", "sample"}},
		{"python dir", []E{F("python/x.whl", "")}, []string{"out", "python"}},
		{"site-packages module", []E{F("lib/python3.11/site-packages/x/__init__.py", "")}, []string{"out", "python"}},
		{"lib/stubs .so gives stubs and lib", []E{B("lib/stubs/libcuda.so", so)}, []string{"out", "lib", "stubs"}},
		{"top-level stubs .a", []E{F("stubs/libx.a", "!<arch>\n")}, []string{"out", "stubs"}},
		{"stubs dir without libraries", []E{F("lib/stubs/README", "")}, []string{"out"}},
		{"lib as a symlink to lib64", []E{B("lib64/libx.so", so), L("lib", "lib64")}, []string{"out", "lib"}},
		{
			"everything",
			[]E{X("bin/x", ""), F("include/x.h", ""), F("share/doc/x", ""), B("lib/libx.so", so), F("lib/libx.a", ""),
				F("samples/s", ""), F("python/p.py", ""), F("lib/stubs/libx.so", "")},
			[]string{"out", "bin", "dev", "doc", "include", "lib", "python", "sample", "static", "stubs"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := detectEntries(t, tc.entries)
			if len(f.Outputs) != len(features.OutputNames) {
				t.Errorf("Outputs has %d keys, want all %d", len(f.Outputs), len(features.OutputNames))
			}
			if diff := cmp.Diff(tc.want, outputs(f.Outputs)); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLibGroups(t *testing.T) {
	a := sharedLib("liba.so.1", []string{"libcudart.so.12", "libc.so.6"}, 80, 90)
	b := sharedLib("libb.so.2", []string{"libc.so.6"}, 52)
	host := sharedLib("libhost.so.1", []string{"libm.so.6"})
	tests := []struct {
		name                    string
		entries                 []E
		layout                  string
		archs, provided, needed string // JSON
	}{
		{
			name:    "files directly in lib",
			entries: []E{B("lib/liba.so.1", a), L("lib/liba.so", "liba.so.1"), B("lib/libb.so", b), B("lib/libhost.so", host), F("lib/libx.a", "")},
			layout:  "files",
			archs:   `["sm_52","sm_80","sm_90"]`, provided: `["liba.so.1","libb.so.2","libhost.so.1"]`,
			needed: `["libc.so.6","libcudart.so.12","libm.so.6"]`,
		},
		{
			name:    "subdirectories, stubs and cmake ignored",
			entries: []E{B("lib/11/liba.so", a), B("lib/12/libb.so", b), B("lib/stubs/libhost.so", host), F("lib/cmake/x.cmake", "")},
			layout:  "subdirs",
			archs:   `{"11":["sm_80","sm_90"],"12":["sm_52"]}`, provided: `{"11":["liba.so.1"],"12":["libb.so.2"]}`,
			needed: `{"11":["libc.so.6","libcudart.so.12"],"12":["libc.so.6"]}`,
		},
		{
			name:    "only direct children of a subdirectory count",
			entries: []E{B("lib/12/deep/liba.so", a), B("lib/12/libb.so", b)},
			layout:  "subdirs",
			archs:   `{"12":["sm_52"]}`, provided: `{"12":["libb.so.2"]}`, needed: `{"12":["libc.so.6"]}`,
		},
		{
			name:    "files and subdirectories side by side (upstream failed)",
			entries: []E{B("lib/liba.so", a), B("lib/12/libb.so", b)},
			layout:  "mixed",
			archs:   `{".":["sm_80","sm_90"],"12":["sm_52"]}`, provided: `{".":["liba.so.1"],"12":["libb.so.2"]}`,
			needed: `{".":["libc.so.6","libcudart.so.12"],"12":["libc.so.6"]}`,
		},
		{
			name:    "no lib",
			entries: []E{F("include/x.h", "")},
			layout:  "none",
			archs:   `[]`, provided: `[]`, needed: `[]`,
		},
		{
			name:    "only stubs in lib",
			entries: []E{B("lib/stubs/liba.so", a)},
			layout:  "none",
			archs:   `[]`, provided: `[]`, needed: `[]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := detectEntries(t, tc.entries)
			if f.LibLayout != tc.layout {
				t.Errorf("LibLayout = %q, want %q", f.LibLayout, tc.layout)
			}
			for _, c := range []struct {
				name string
				got  features.Grouped
				want string
			}{{"cudaArchitectures", f.CudaArchitectures, tc.archs}, {"providedLibs", f.ProvidedLibs, tc.provided}, {"neededLibs", f.NeededLibs, tc.needed}} {
				got, err := c.got.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != c.want {
					t.Errorf("%s = %s, want %s", c.name, got, c.want)
				}
			}
		})
	}
}

func TestLibraries(t *testing.T) {
	a := sharedLib("liba.so.1", []string{"libc.so.6"}, 86)
	// CUDA 13-shaped device code: SASS sm_90, sm_100a (two entries of
	// one shape) and sm_120f, PTX sm_100a, a listed kind 0x10 and an
	// unlisted 0x40, both warned about.
	cuda13 := testelf.Build(testelf.Spec{Soname: "libcuda13.so.13", Sections: []testelf.Section{{Name: ".nv_fatbin", Data: testfatbin.Section(
		testfatbin.Container(img{SM: 90, ZSTD: true}, img{SM: 100, ZSTD: true, Specific: true, HeaderSize: 112}, img{SM: 100, PTX: true, Specific: true, ZSTD: true, HeaderSize: 80}),
		testfatbin.Container(img{SM: 100, ZSTD: true, Specific: true, HeaderSize: 112}, img{Kind: 0x10, SM: 103, HeaderSize: 112}, img{Kind: 0x40, SM: 110, HeaderSize: 80},
			img{SM: 120, ZSTD: true, Family: true, HeaderSize: 104}),
	)}}})
	obj := testelf.Build(testelf.Spec{Type: 1, NoDynamic: true, Sections: []testelf.Section{{Name: "__nv_relfatbin", Data: testfatbin.Container(img{SM: 75}, img{SM: 80, PTX: true, HeaderSize: 96})}}})
	static := testelf.Archive(map[string][]byte{"a.o": obj}, []string{"a.o"})
	f := detectEntries(t, []E{
		B("lib/liba.so.1", a),
		L("lib/liba.so", "liba.so.1"),
		B("lib/libcuda13.so.13", cuda13),
		L("lib/libgone.so", "libgone.so.1"),
		F("lib/libc.so", "/* GNU ld script */\nGROUP ( libc.so.6 )\n"),
		B("lib/libs_static.a", static),
		B("lib/stubs/libcuda.so", sharedLib("libcuda.so.1", nil)),
		F("lib/libbroken.so", "\x7fELF garbage"),
		X("bin/tool", "#!/bin/sh"),
	})
	none, noEntries := []string{}, []features.FatbinEntry{}
	entry := func(kind, sm int, flags uint64, hdr, count int) features.FatbinEntry {
		return features.FatbinEntry{Kind: kind, SM: sm, Flags: flags, HeaderSize: hdr, Count: count}
	}
	want := []features.Library{
		{Path: "lib/liba.so.1", Kind: "shared", Soname: "liba.so.1", Needed: []string{"libc.so.6"}, CudaArchitectures: []string{"sm_86"},
			SASSArchitectures: []string{"sm_86"}, PTXArchitectures: none, FatbinEntries: []features.FatbinEntry{entry(2, 86, 0x11, 64, 1)}},
		{Path: "lib/libbroken.so", Kind: "other", Needed: none, CudaArchitectures: none, SASSArchitectures: none, PTXArchitectures: none, FatbinEntries: noEntries, Error: "malformed ELF"},
		{Path: "lib/libc.so", Kind: "linkerScript", Needed: none, CudaArchitectures: none, SASSArchitectures: none, PTXArchitectures: none, FatbinEntries: noEntries},
		{Path: "lib/libcuda13.so.13", Kind: "shared", Soname: "libcuda13.so.13", Needed: none,
			CudaArchitectures: []string{"sm_90", "sm_100a", "sm_103", "sm_120f"}, SASSArchitectures: []string{"sm_90", "sm_100a", "sm_120f"}, PTXArchitectures: []string{"sm_100a"},
			FatbinEntries: []features.FatbinEntry{
				entry(1, 100, 0x108011, 80, 1),
				entry(2, 90, 0x8011, 64, 1),
				entry(2, 100, 0x1108011, 112, 2),
				entry(2, 120, 0x1208011, 104, 1),
				entry(0x10, 103, 0x11, 112, 1),
				entry(0x40, 110, 0x11, 80, 1),
			},
			FatbinWarnings: []string{
				"entry kind 0x10 not understood (its architecture counted in cudaArchitectures only, as cuobjdump 12.5 lists it): 1 entry",
				"entry kind 0x40 not understood (not counted): 1 entry",
			}},
		{Path: "lib/libgone.so", Kind: "danglingSymlink", Needed: none, CudaArchitectures: none, SASSArchitectures: none, PTXArchitectures: none, FatbinEntries: noEntries},
		{Path: "lib/libs_static.a", Kind: "static", Needed: none, CudaArchitectures: []string{"sm_75", "sm_80"}, SASSArchitectures: []string{"sm_75"}, PTXArchitectures: []string{"sm_80"},
			FatbinEntries: []features.FatbinEntry{entry(1, 80, 0x11, 96, 1), entry(2, 75, 0x11, 64, 1)}},
		{Path: "lib/stubs/libcuda.so", Kind: "shared", Soname: "libcuda.so.1", Needed: none, CudaArchitectures: none, SASSArchitectures: none, PTXArchitectures: none, FatbinEntries: noEntries, Stub: true},
	}
	got := f.Libraries
	for i := range got {
		if got[i].Error != "" { // the detail comes from debug/elf; the kind of failure is ours
			got[i].Error, _, _ = strings.Cut(got[i].Error, ":")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Libraries (-want +got):\n%s", diff)
	}
}

func TestOtherFeatures(t *testing.T) {
	f := detectEntries(t, []E{
		F("include/cuda.h", ""), F("include/sub/x.hpp", ""), F("include/y.hh", ""), F("include/z.hxx", ""), F("include/not.inc", ""),
		F("lib/11/libx.so", ""), F("lib/12/libx.so", ""), F("lib/12.2/libx.so", ""), D("lib/13"), F("lib/v12/x", ""),
		F("lib/python3.10/site-packages/mod/__init__.py", ""), F("python/tool.whl", ""), F("python/util.py", ""),
	})
	if err := buildredist.Complete(f, "", false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"11", "12", "12.2"}, f.CudaVersionsInLib); diff != "" {
		t.Errorf("CudaVersionsInLib (-want +got):\n%s", diff)
	}
	// buildRedist swaps in lib/${cudaMajorVersion}: lib/12.2 is never one.
	if diff := cmp.Diff([]string{"11", "12"}, slices.Sorted(maps.Keys(f.BuildRedistByCudaMajor))); diff != "" {
		t.Errorf("BuildRedistByCudaMajor keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"include/cuda.h", "include/sub/x.hpp", "include/y.hh", "include/z.hxx"}, f.Headers); diff != "" {
		t.Errorf("Headers (-want +got):\n%s", diff)
	}
	wantPy := []string{"lib/python3.10/site-packages/mod/__init__.py", "python/tool.whl", "python/util.py"}
	if diff := cmp.Diff(wantPy, f.PythonModules); diff != "" {
		t.Errorf("PythonModules (-want +got):\n%s", diff)
	}
}

// TestNarHash checks the hash computed during detection against go-nix's
// own serialisation and, where Nix is installed, against `nix hash path`.
func TestNarHash(t *testing.T) {
	root := t.TempDir()
	entries := []E{
		X("bin/tool", "#!/bin/sh\necho hi\n"), F("include/a.h", "int a;"), D("empty"),
		L("lib/libx.so", "libx.so.1"), B("lib/libx.so.1", sharedLib("libx.so.1", nil, 80)),
		F("b-sorts-before-c", ""), F("c", "x"), F("B-upper", "sorted by bytes"),
	}
	if err := testarchive.WriteTree(root, entries); err != nil {
		t.Fatal(err)
	}
	f, err := facts.Detect(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := testnar.HashPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if f.NarHash != want {
		t.Errorf("NarHash = %s, go-nix DumpPath gives %s", f.NarHash, want)
	}
	nix, err := exec.LookPath("nix")
	if err != nil {
		testenv.Unavailable(t, "nix is not installed (apt-get install nix-bin): the Nix oracle is not consulted", "CRFF_REQUIRE_NIX")
	}
	out, err := exec.Command(nix, "--extra-experimental-features", "nix-command", "hash", "path", root).Output()
	if err != nil {
		t.Fatalf("nix hash path: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != f.NarHash {
		t.Errorf("NarHash = %s, nix hash path gives %s", f.NarHash, got)
	}
}

func TestDetectErrors(t *testing.T) {
	if _, err := facts.Detect(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing dir: err = %v", err)
	}
}

// TestBuildRedistFacts checks the buildRedist facts the walk gathers:
// /usr/ found in content, pkg-config lines that buildRedist rewrites,
// LICENSE excluded, lib/<major> chosen by the CUDA major.
func TestBuildRedistFacts(t *testing.T) {
	entries := []E{
		F("LICENSE", "see /usr/share/doc"),
		F("pkg-config/cudart-12.8.pc", "cudaroot=/usr/local/cuda-12.8\nlibdir=${cudaroot}/lib\nincludedir = /usr/local/cuda-12.8/include\n\nName: cudart\n"),
		F("pkg-config/nvml-12.8.pc", "cudaroot=/usr/local/cuda-12.8\nlibdir=/usr/lib/x86_64-linux-gnu\n"),
		F("samples/Makefile", "CUDA_PATH ?= /usr/local/cuda\n"),
		F("include/x.h", "int x;"),
		B("lib/11/libx.so", sharedLib("libx.so.11", nil)),
		B("lib/12/libx.so", sharedLib("libx.so.12", nil)),
		B("lib/12/stubs/libcuda.so", sharedLib("libcuda.so.1", nil)),
	}
	root := t.TempDir()
	if err := testarchive.WriteTree(root, entries); err != nil {
		t.Fatal(err)
	}
	f := detectWithRules(t, root, "12")
	br := f.BuildRedist
	if diff := cmp.Diff([]string{"out", "samples", "include", "lib", "stubs"}, br.Outputs); diff != "" {
		t.Errorf("Outputs (-want +got):\n%s", diff)
	}
	if !br.HasStubs || !br.CudaMajorDir {
		t.Errorf("HasStubs %v CudaMajorDir %v, want both true", br.HasStubs, br.CudaMajorDir)
	}
	// cudart's /usr/ lines are all rewritten; nvml's libdir does not end in
	// /lib, so it stays; LICENSE is excluded.
	wantFHS := []string{"samples/Makefile", "share/pkgconfig/nvml-12.8.pc"}
	if diff := cmp.Diff(wantFHS, br.FHSReferences.Paths); diff != "" {
		t.Errorf("FHS references (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pkg-config/cudart-12.8.pc"}, f.Tree.UsrOnlyInPkgConfigVars); diff != "" {
		t.Errorf("UsrOnlyInPkgConfigVars (-want +got):\n%s", diff)
	}
	if f.BuildRedistByCudaMajor != nil {
		t.Errorf("BuildRedistByCudaMajor set although a major was given")
	}
	g := detectWithRules(t, root, "")
	if len(g.BuildRedistByCudaMajor) != 2 || g.BuildRedistByCudaMajor["11"].HasStubs || !g.BuildRedistByCudaMajor["12"].HasStubs {
		t.Errorf("BuildRedistByCudaMajor = %+v", g.BuildRedistByCudaMajor)
	}
}
