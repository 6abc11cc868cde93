package sonames

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func TestSystem(t *testing.T) {
	for s, want := range map[string]bool{
		"libc.so.6": true, "libm.so.6": true, "libdl.so.2": true, "libpthread.so.0": true, "librt.so.1": true,
		"libstdc++.so.6": true, "libgcc_s.so.1": true, "libgomp.so.1": true, "ld-linux-x86-64.so.2": true,
		"ld-linux-aarch64.so.1": true, "libcuda.so.1": true,
		"libcuda.so": false, "libcublas.so.12": false, "libz.so.1": false, "libnvidia-ml.so.1": false, "libcrypt.so.1": false,
	} {
		if System(s) != want {
			t.Errorf("System(%q) = %v", s, !want)
		}
	}
}

var release = []Archive{
	{Archive: manifest.Archive{Package: "libcublas", Platform: "linux-x86_64"}, Provided: []string{"libcublas.so.12", "libcublasLt.so.12"}, Needed: []string{"libcublasLt.so.12", "libc.so.6"}},
	{Archive: manifest.Archive{Package: "libcublas", Platform: "linux-sbsa"}, Provided: []string{"libcublas.so.12", "libcublasLt.so.12"}},
	{Archive: manifest.Archive{Package: "libnvjitlink", Platform: "linux-x86_64"}, Provided: []string{"libnvJitLink.so.12"}},
	{Archive: manifest.Archive{Package: "libcusparse", Platform: "linux-x86_64"}, Provided: []string{"libcusparse.so.12"}, Needed: []string{"libnvJitLink.so.12"}},
	{Archive: manifest.Archive{Package: "libcusolver", Platform: "linux-x86_64"}, Provided: []string{"libcusolver.so.11"},
		Needed: []string{"libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12", "libnvJitLink.so.12", "libgomp.so.1", "libz.so.1", "libcuda.so.1"}},
	{Archive: manifest.Archive{Package: "libcusolver", Platform: "linux-sbsa"}, Provided: []string{"libcusolver.so.11"}, Needed: []string{"libcusparse.so.12", "libcublas.so.12"}},
}

func TestNeeds(t *testing.T) {
	ix := NewIndex(release)
	got := Needs(release[4], ix)
	want := []Need{
		{Soname: "libcublas.so.12", Providers: []string{"libcublas"}},
		{Soname: "libcublasLt.so.12", Providers: []string{"libcublas"}},
		{Soname: "libcusparse.so.12", Providers: []string{"libcusparse"}},
		{Soname: "libnvJitLink.so.12", Providers: []string{"libnvjitlink"}},
		{Soname: "libz.so.1", Providers: []string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
	// Per platform: linux-sbsa has no libcusparse archive in this release.
	got = Needs(release[5], ix)
	want = []Need{{Soname: "libcusparse.so.12", Providers: []string{}}, {Soname: "libcublas.so.12", Providers: []string{"libcublas"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needs sbsa (-want +got):\n%s", diff)
	}
	// A package's own sonames are never needs; a second index fills in
	// what the first lacks.
	if got := Needs(release[0], ix); len(got) != 0 {
		t.Errorf("libcublas needs %v", got)
	}
	other := NewIndex([]Archive{{Archive: manifest.Archive{Package: "libcusparse", Platform: "linux-sbsa"}, Provided: []string{"libcusparse.so.12"}}})
	got = Needs(release[5], ix, other)
	if got[0].Providers[0] != "libcusparse" {
		t.Errorf("second index not used: %v", got)
	}
}

func TestCompare(t *testing.T) {
	ix := NewIndex(release)
	needs := Needs(release[4], ix)
	for _, tc := range []struct {
		name string
		in   Inputs
		want []Finding
	}{
		{"all there, zlib from outside", Inputs{BuildInputs: []string{"libcublas", "libcusparse", "libnvjitlink", "zlib"}}, nil},
		{"missing libcusparse", Inputs{BuildInputs: []string{"libcublas", "libnvjitlink", "zlib"}}, []Finding{
			{Error: true, Kind: "missingDependency", Soname: "libcusparse.so.12", Input: "libcusparse",
				Message: "needs libcusparse.so.12 (from libcusparse), which no buildInput provides: autoPatchelfHook would fail"}}},
		{"propagated counts", Inputs{BuildInputs: []string{"libcublas", "zlib"}, Available: []string{"libcublas", "zlib", "libcusparse", "libnvjitlink"}}, nil},
		{"ignored", Inputs{BuildInputs: []string{"libcublas", "libnvjitlink", "zlib"}, Ignore: []string{"libcusparse.so.*"}}, nil},
		{"ignore all", Inputs{IgnoreAll: true}, nil},
		{"nothing from outside: libz unresolved; an unused input", Inputs{BuildInputs: []string{"libcublas", "libcusparse", "libnvjitlink", "libcusolver"}}, []Finding{
			{Kind: "unresolvedDependency", Soname: "libz.so.1",
				Message: "needs libz.so.1, which no package of the manifests provides: a buildInput from outside them must, or autoPatchelfIgnoreMissingDeps must list it"},
			{Kind: "unusedDependency", Input: "libcusolver", Message: "buildInput libcusolver provides none of the libraries the archive needs"}}},
	} {
		got := Compare(needs, tc.in, ix.Known)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
