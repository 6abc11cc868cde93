package runtimedeps_test

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// load is a runtime load found as a whole string.
func load(name, glob, confidence string) features.RuntimeLoad {
	kind := "soname"
	if glob != "" {
		kind = "template"
	}
	return features.RuntimeLoad{Name: name, Glob: glob, Confidence: confidence,
		Evidence: []features.LoadEvidence{{Kind: kind, Section: ".rodata", Offset: 64, String: name}}}
}

// archive is a package's archive providing sonames, one library of which
// (the first) loads loads.
func archive(pkg string, provides []string, loads ...features.RuntimeLoad) manifest.DetectedArchive {
	f := &features.Features{ProvidedLibs: features.Grouped{List: provides}}
	for i, s := range provides {
		l := features.Library{Path: "lib/" + s, Kind: "shared", Soname: s}
		if i == 0 {
			l.RuntimeLoads = loads
		}
		f.Libraries = append(f.Libraries, l)
	}
	return manifest.DetectedArchive{Archive: manifest.Archive{Package: pkg, Platform: "linux-x86_64", Variant: manifest.NoVariant}, Features: f}
}

func freeIndex(t *testing.T) *sonameindex.Index {
	t.Helper()
	ix := sonameindex.New()
	if err := ix.Read(strings.NewReader("#! provider Debian bookworm main\nlibibverbs.so.1\nlibnuma.so.1\nliburcu-bp.so.8\nlibfoo.so.1 plugins/\n"), "test.sonames"); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestRules: one load per rule, each resolved to its provider; a rule
// applied in the wrong order, or missing, gives another kind.
func TestRules(t *testing.T) {
	cublas := archive("libcublas", []string{"libcublasLt.so.13", "libcublas.so.13"},
		load("libnvrtc.so.13", "", "high"),            // another package of the release
		load("libcuda.so.1", "", "high"),              // the driver
		load("libcuda.so", "", "medium"),              // the driver, unversioned
		load("libcublas.so.13", "", "high"),           // itself
		load("libibverbs.so", "", "high"),             // free, unversioned
		load("libnuma.so.%s", "libnuma.so.*", "high"), // free, template
		load("lib%s.so", "lib*.so", "high"),           // generic template
		load("libgdrapi.so.2", "", "high"),            // unknown
		load("libfoo.so.1", "", "high"),               // only a plugin folder has it: unknown
		load("libmentioned.so.1", "", "low"),          // a mention: no load
	)
	nvrtc := archive("cuda_nvrtc", []string{"libnvrtc.so.13", "libnvrtc-builtins.so.13.0"})
	compat := archive("cuda_compat", []string{"libcuda.so.1"})
	rel := runtimedeps.NewRelease([]manifest.DetectedArchive{cublas, nvrtc, compat})
	got := runtimedeps.Resolver{Releases: []*runtimedeps.Release{rel}, Free: freeIndex(t)}.Resolve(cublas)
	want := map[string][2]string{
		"libnvrtc.so.13":  {features.ProviderPackage, "cuda_nvrtc"},
		"libcuda.so.1":    {features.ProviderDriver, ""},
		"libcuda.so":      {features.ProviderDriver, ""},
		"libcublas.so.13": {features.ProviderSamePackage, "libcublas"},
		"libibverbs.so":   {features.ProviderFree, "rdma-core"},
		"libnuma.so.%s":   {features.ProviderFree, "numactl"},
		"lib%s.so":        {features.ProviderUnknown, ""},
		"libgdrapi.so.2":  {features.ProviderUnknown, ""},
		"libfoo.so.1":     {features.ProviderUnknown, ""},
	}
	seen := map[string]bool{}
	for _, r := range got {
		w, ok := want[r.Name]
		if !ok {
			t.Errorf("%s resolved (%+v), want it left out", r.Name, r.Provider)
			continue
		}
		seen[r.Name] = true
		if r.Provider.Kind != w[0] || r.Provider.Package != w[1] {
			t.Errorf("%s: provider %s %q, want %s %q (%s)", r.Name, r.Provider.Kind, r.Provider.Package, w[0], w[1], r.Provider.Reason)
		}
		if r.Provider.Reason == "" {
			t.Errorf("%s: no reason", r.Name)
		}
		if r.Library != "lib/libcublasLt.so.13" || r.Evidence.Kind == "" {
			t.Errorf("%s: library %q, evidence %+v", r.Name, r.Library, r.Evidence)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s not resolved", name)
		}
	}
}

// TestTemplateOfSeveralPackages: a glob matching the libraries of two
// packages says nothing about which is loaded; of one, it is that one's.
func TestTemplateOfSeveralPackages(t *testing.T) {
	user := archive("cudnn", []string{"libdnn.so.9"},
		load("libfoo%s.so.%d", "libfoo*.so.*", "high"),
		load("libnvrtc.so.%d", "libnvrtc.so.*", "high"))
	rel := runtimedeps.NewRelease([]manifest.DetectedArchive{user,
		archive("fooa", []string{"libfooa.so.12"}), archive("foob", []string{"libfoob.so.10"}),
		archive("cuda_nvrtc", []string{"libnvrtc.so.13", "libnvrtc-builtins.so.13.0"})})
	got := runtimedeps.Resolver{Releases: []*runtimedeps.Release{rel}}.Resolve(user)
	if len(got) != 2 {
		t.Fatalf("got %d loads, want 2: %+v", len(got), got)
	}
	if p := got[0].Provider; got[0].Name != "libfoo%s.so.%d" || p.Kind != features.ProviderUnknown || len(p.Sonames) != 2 {
		t.Errorf("libfoo%%s.so.%%d: %+v, want unknown with both candidates", p)
	}
	if p := got[1].Provider; p.Kind != features.ProviderPackage || p.Package != "cuda_nvrtc" || len(p.Sonames) != 1 {
		t.Errorf("libnvrtc.so.%%d: %+v, want cuda_nvrtc's libnvrtc.so.13 alone", p)
	}
}

// TestOtherReleaseAndPlatform: a provider of another platform is none;
// one of a later release given (another manifest) is named as such.
func TestOtherReleaseAndPlatform(t *testing.T) {
	cudnn := archive("cudnn", []string{"libcudnn_graph.so.9"}, load("libnvrtc.so.13", "", "high"))
	arm := archive("cuda_nvrtc", []string{"libnvrtc.so.13"})
	arm.Platform = "linux-sbsa"
	own := runtimedeps.NewRelease([]manifest.DetectedArchive{cudnn, arm})
	got := runtimedeps.Resolver{Releases: []*runtimedeps.Release{own}}.Resolve(cudnn)
	if got[0].Provider.Kind != features.ProviderUnknown {
		t.Errorf("provider of another platform: %+v, want unknown", got[0].Provider)
	}
	other := runtimedeps.NewRelease([]manifest.DetectedArchive{archive("cuda_nvrtc", []string{"libnvrtc.so.13"})})
	got = runtimedeps.Resolver{Releases: []*runtimedeps.Release{own, other}}.Resolve(cudnn)
	if p := got[0].Provider; p.Kind != features.ProviderPackage || p.Package != "cuda_nvrtc" || !strings.Contains(p.Reason, "another manifest") {
		t.Errorf("provider of another manifest: %+v", p)
	}
}

func TestGeneric(t *testing.T) {
	for glob, want := range map[string]bool{"lib*.so": true, "*.so": true, "lib*.so.*": true, "*-*.so": true,
		"libnvrtc.so.*": false, "nvshmem_transport_*.so.*": false, "libcu*.so.*": false} {
		if got := runtimedeps.Generic(glob); got != want {
			t.Errorf("Generic(%q) = %v, want %v", glob, got, want)
		}
	}
}

func TestDriverListHasReasons(t *testing.T) {
	names := runtimedeps.DriverSonames()
	for _, must := range []string{"libcuda.so.1", "libnvidia-ml.so.1"} {
		found := false
		for _, n := range names {
			found = found || n == must
		}
		if !found {
			t.Errorf("driver list lacks %s", must)
		}
	}
}
