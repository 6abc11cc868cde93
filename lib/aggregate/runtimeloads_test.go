package aggregate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// loadEntries is a release where cuBLAS loads NVRTC (another package),
// the driver and numactl's libnuma (a free library), as CUDA 13's
// cuBLASLt and cuFile do.
func loadEntries() []aggregate.Detected {
	ev := func(s string) []features.LoadEvidence {
		return []features.LoadEvidence{{Kind: "soname", Section: ".rodata", Offset: 16, String: s}}
	}
	cublas := &features.Features{Outputs: map[string]bool{"out": true, "lib": true}, NarHash: "sha256-a",
		ProvidedLibs: features.Grouped{List: []string{"libcublasLt.so.13"}},
		Libraries: []features.Library{{Path: "lib/libcublasLt.so.13", Kind: "shared", Soname: "libcublasLt.so.13", RuntimeLoads: []features.RuntimeLoad{
			{Name: "libcuda.so.1", Confidence: "high", Evidence: ev("libcuda.so.1")},
			{Name: "libnuma.so.%s", Glob: "libnuma.so.*", Confidence: "high", Evidence: ev("libnuma.so.%s")},
			{Name: "libnvrtc.so.13", Confidence: "high", Evidence: ev("libnvrtc.so.13")},
			{Name: "libnvrtc.so.99", Confidence: "low", Evidence: ev("cannot load libnvrtc.so.99")},
		}}}}
	nvrtc := &features.Features{Outputs: map[string]bool{"out": true, "lib": true}, NarHash: "sha256-b",
		ProvidedLibs: features.Grouped{List: []string{"libnvrtc.so.13"}},
		Libraries:    []features.Library{{Path: "lib/libnvrtc.so.13", Kind: "shared", Soname: "libnvrtc.so.13"}}}
	arc := func(pkg string) manifest.Archive {
		return manifest.Archive{Package: pkg, Platform: "linux-x86_64", Variant: manifest.NoVariant, SHA256: "00", RelativePath: pkg + ".tar.xz"}
	}
	return []aggregate.Detected{
		{DetectedArchive: manifest.DetectedArchive{Archive: arc("libcublas"), Features: cublas}},
		{DetectedArchive: manifest.DetectedArchive{Archive: arc("cuda_nvrtc"), Features: nvrtc}},
	}
}

// TestDocumentsCarryResolvedLoads: detail.json, index.json and
// buildRedist.json of a manifest whose libraries load others carry the
// loads resolved (the mention left out); without ResolveLoads in
// WriteDocuments they have none.
func TestDocumentsCarryResolvedLoads(t *testing.T) {
	dir := t.TempDir()
	releases := map[string]features.ReleaseInfo{"libcublas": {Version: "13.0.0"}, "cuda_nvrtc": {Version: "13.0.48"}}
	if err := aggregate.WriteDocuments(dir, "cuda", "13.0.0", releases, loadEntries()); err != nil {
		t.Fatal(err)
	}
	var detail features.Detail
	readJSON(t, filepath.Join(dir, "detail.json"), &detail)
	got := map[string]string{}
	for _, l := range detail["libcublas"]["linux-x86_64"]["None"].RuntimeLoads {
		got[l.Name] = l.Provider.Kind + " " + l.Provider.Package
	}
	want := map[string]string{"libcuda.so.1": "driver ", "libnuma.so.%s": "free numactl", "libnvrtc.so.13": "package cuda_nvrtc"}
	if len(got) != len(want) {
		t.Errorf("detail.json loads %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("detail.json %s: %q, want %q", k, got[k], v)
		}
	}
	var decls map[string]features.BuildRedistDecl
	readJSON(t, filepath.Join(dir, "buildRedist.json"), &decls)
	if rd := decls["libcublas"].RuntimeDependencies; len(rd) != 3 || rd[2].Name != "libnvrtc.so.13" || rd[2].Libraries[0] != "libcublasLt.so.13" || rd[2].Archives[0] != "linux-x86_64/None" {
		t.Errorf("buildRedist.json runtimeDependencies %+v", rd)
	}
	if rd := decls["cuda_nvrtc"].RuntimeDependencies; rd != nil {
		t.Errorf("cuda_nvrtc loads nothing, has %+v", rd)
	}
	var index features.Index
	readJSON(t, filepath.Join(dir, "index.json"), &index)
	leaf := index["cuda"]["13.0.0"]["libcublas"].Packages["linux-x86_64"]["None"]
	if len(leaf.RuntimeLoads) != 3 || leaf.RuntimeLoads[2] != (features.IndexLoad{Name: "libnvrtc.so.13", Provider: "package", Package: "cuda_nvrtc"}) {
		t.Errorf("index.json runtimeLoads %+v", leaf.RuntimeLoads)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}
