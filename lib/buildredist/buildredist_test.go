package buildredist

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func tree(files ...string) features.Tree { return features.Tree{Files: files} }

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		globstar      bool
		want          bool
	}{
		{"**/*.pc", "lib/x.pc", false, true},
		{"**/*.pc", "share/pkgconfig/x.pc", false, false}, // "**" is "*": one level
		{"**/*.pc", "share/pkgconfig/x.pc", true, true},
		{"**/*.pc", "x.pc", true, true}, // globstar: zero directories too
		{"**/*.pc", "x.pc", false, false},
		{"**/*.a", "lib/libx.a", false, true},
		{"**/*.a", "lib/stubs/libx.a", false, false},
		{"**/*.a", "lib/stubs/libx.a", true, true},
		{"**/*.a", ".hidden/libx.a", true, false}, // no dotglob
		{"**/*.a", "lib/.libx.a", false, false},
		{"lib/stubs", "lib/stubs", false, true},
		{"lib", "lib64", false, false},
	}
	for _, tc := range tests {
		if got := globMatch(tc.pattern, tc.path, tc.globstar); got != tc.want {
			t.Errorf("globMatch(%q, %q, globstar=%v) = %v, want %v", tc.pattern, tc.path, tc.globstar, got, tc.want)
		}
	}
}

func TestAnalyzeOutputs(t *testing.T) {
	tests := []struct {
		name     string
		tree     features.Tree
		opts     Options
		want     []string
		stubs    bool
		majorDir bool
	}{
		{"only a license", tree("LICENSE"), Options{}, []string{"out"}, false, false},
		{"bin", tree("LICENSE", "bin/nvcc"), Options{}, []string{"out", "bin"}, false, false},
		{"include, lib, static", tree("include/x.h", "lib/libx.so", "lib/libx_static.a"), Options{}, []string{"out", "include", "lib", "static"}, false, false},
		{
			// static takes lib/*.a out of the lib output; lib keeps the .so.
			"lib of static archives only: lib emptied", tree("lib/libx.a"), Options{}, []string{"out", "static"}, false, false,
		},
		{"lib64 goes to lib", tree("lib64/libx.so"), Options{}, []string{"out", "lib"}, false, false},
		{
			"stubs: lib/stubs leaves lib for stubs", tree("lib/libx.so", "lib/stubs/libcuda.so"), Options{},
			[]string{"out", "lib", "stubs"}, true, false,
		},
		{
			// Without globstar **/*.a does not reach lib/stubs/*.a; stubs takes it.
			"static stub archive stays with stubs", tree("lib/stubs/libcuda.a"), Options{}, []string{"out", "stubs"}, true, false,
		},
		{
			// With globstar static would take it first, and stubs takes it back.
			"static stub archive with globstar", tree("lib/stubs/libcuda.a"), Options{Globstar: true}, []string{"out", "stubs"}, true, false,
		},
		{
			"pkg-config moved to share/pkgconfig: dev only with globstar",
			tree("pkg-config/x.pc", "lib/libx.so"), Options{}, []string{"out", "lib"}, false, false,
		},
		{
			"pkg-config moved to share/pkgconfig, globstar", tree("pkg-config/x.pc", "lib/libx.so"), Options{Globstar: true},
			[]string{"out", "dev", "lib"}, false, false,
		},
		{
			"lib/pkgconfig/*.pc: lib takes it (lib after dev)", tree("lib/pkgconfig/x.pc"), Options{Globstar: true},
			[]string{"out", "lib"}, false, false,
		},
		{"cmake at one level", tree("cmake/x.cmake"), Options{}, []string{"out", "dev"}, false, false},
		{"samples and wheels", tree("samples/a.cu", "python/x.whl"), Options{}, []string{"out", "samples", "python"}, false, false},
		{
			"lib/<major> replaces lib", tree("lib/11/libx.so", "lib/12/libx_static.a", "lib/libold.so"), Options{CudaMajor: "12"},
			[]string{"out", "static"}, false, true,
		},
		{
			"no lib/<major> for this major", tree("lib/11/libx.so"), Options{CudaMajor: "12"},
			[]string{"out", "lib"}, false, false,
		},
		{"dangling symlink still moves", features.Tree{Symlinks: []string{"bin/tool"}}, Options{}, []string{"out", "bin"}, false, false},
		{"empty stubs directory", features.Tree{Files: []string{"lib/libx.so"}, EmptyDirs: []string{"stubs"}}, Options{}, []string{"out", "lib", "stubs"}, true, false},
		{"a file named stubs is no directory", tree("share/stubs"), Options{}, []string{"out"}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Analyze(tc.tree, tc.opts)
			if diff := cmp.Diff(tc.want, f.Outputs); diff != "" {
				t.Errorf("Outputs (-want +got):\n%s", diff)
			}
			if f.HasStubs != tc.stubs {
				t.Errorf("HasStubs = %v, want %v", f.HasStubs, tc.stubs)
			}
			if f.CudaMajorDir != tc.majorDir {
				t.Errorf("CudaMajorDir = %v, want %v", f.CudaMajorDir, tc.majorDir)
			}
		})
	}
}

func TestFHSReferences(t *testing.T) {
	tr := features.Tree{
		Files:                  []string{"LICENSE", "doc/LICENSE", "bin/tool", "pkg-config/x.pc", "lib/pkgconfig/y.pc", "share/pkgconfig/z.pc", "samples/Makefile"},
		Symlinks:               []string{"lib/link"},
		UsrFiles:               []string{"LICENSE", "doc/LICENSE", "pkg-config/x.pc", "lib/pkgconfig/y.pc", "share/pkgconfig/z.pc", "samples/Makefile", "lib/link"},
		UsrOnlyInPkgConfigVars: []string{"pkg-config/x.pc", "lib/pkgconfig/y.pc"},
	}
	f := Analyze(tr, Options{})
	// LICENSE files are excluded; x.pc is rewritten once moved to
	// share/pkgconfig; y.pc is not in share/pkgconfig, so it is not; z.pc
	// has /usr/ elsewhere; symlinks are not read by grep -r.
	want := features.FHS{Count: 3, Paths: []string{"lib/pkgconfig/y.pc", "samples/Makefile", "share/pkgconfig/z.pc"}}
	if diff := cmp.Diff(want, f.FHSReferences); diff != "" {
		t.Errorf("FHSReferences (-want +got):\n%s", diff)
	}
}
