package features_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestEncodeMatchesUpstreamBytes decodes every feature file upstream wrote
// and every index file, and encodes them again: the bytes must be equal,
// so what we write is byte-compatible with what Nixpkgs consumed.
func TestEncodeMatchesUpstreamBytes(t *testing.T) {
	dir := testenv.TestData(t)
	files, _ := filepath.Glob(filepath.Join(dir, "nvidia", "*", "feature_*.json"))
	if len(files) < 8 {
		t.Fatalf("found %d feature files", len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var legacy map[string]map[string]map[string]features.LegacyOutputs
		if err := json.Unmarshal(want, &legacy); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := features.Encode(legacy)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: re-encoding changes the bytes", f)
		}
	}
	idxFile := filepath.Join(dir, "index", "package-info.json")
	want, err := os.ReadFile(idxFile)
	if err != nil {
		t.Fatal(err)
	}
	var idx features.Index
	if err := json.Unmarshal(want, &idx); err != nil {
		t.Fatal(err)
	}
	got, err := features.Encode(idx)
	if err != nil {
		t.Fatal(err)
	}
	// Upstream's index file has no trailing newline; ours always ends in one.
	if strings.TrimSuffix(string(got), "\n") != strings.TrimSuffix(string(want), "\n") {
		t.Errorf("%s: re-encoding the index through our types changes it", idxFile)
	}
}

func TestEncodeASCII(t *testing.T) {
	got, err := features.Encode(map[string]any{"b": "naïve ✓ 𝄞", "a": []int{}, "c": map[string]any{}, "d": "<&>"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [],\n  \"b\": \"na\\u00efve \\u2713 \\ud834\\udd1e\",\n  \"c\": {},\n  \"d\": \"<&>\"\n}\n"
	if string(got) != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}

func TestLegacyAndIndex(t *testing.T) {
	h := strings.Repeat("a", 64)
	m, err := manifest.Parse("m.json", []byte(`{
	  "libx": {"name": "X", "license": "L", "license_path": "libx/LICENSE.txt", "version": "1.2.3", "cuda_variant": ["11", "12"],
	    "linux-x86_64": {
	      "cuda11": {"relative_path": "libx/linux-x86_64/libx-linux-x86_64-1.2.3_cuda11-archive.tar.xz", "sha256": "`+h+`"},
	      "cuda12": {"relative_path": "libx/other/name.tar.gz", "sha256": "`+h+`"}}},
	  "src": {"name": "S", "license": "L", "version": "1", "source": {"relative_path": "src/s.tar.xz", "sha256": "`+h+`"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	outs := func(names ...string) map[string]bool {
		o := map[string]bool{}
		for _, n := range features.OutputNames {
			o[n] = false
		}
		o["out"] = true
		for _, n := range names {
			o[n] = true
		}
		return o
	}
	archives := m.Archives()
	entries := []features.Detected{
		{Archive: archives[0], Features: &features.Features{Outputs: outs("lib", "dev", "include"), NarHash: "sha256-A"}},
		{Archive: archives[1], Features: &features.Features{Outputs: outs("lib", "static"), NarHash: "sha256-B", CudaVersionsInLib: []string{"12"}}},
		{Archive: archives[2], Features: &features.Features{Outputs: outs("include", "dev"), NarHash: "sha256-C"}},
	}
	legacy, err := features.Encode(features.Legacy(entries))
	if err != nil {
		t.Fatal(err)
	}
	wantLegacy := `{
  "libx": {
    "linux-x86_64": {
      "outputs": {
        "bin": false,
        "dev": true,
        "doc": false,
        "lib": true,
        "sample": false,
        "static": true
      }
    }
  }
}
`
	if diff := cmp.Diff(wantLegacy, string(legacy)); diff != "" {
		t.Errorf("legacy (-want +got):\n%s", diff)
	}
	idx, err := features.BuildIndex("r", "9.9", m, entries)
	if err != nil {
		t.Fatal(err)
	}
	leaves := idx["r"]["9.9"]["libx"].Packages["linux-x86_64"]
	if got := leaves["cuda11"]; got.RelativePath != "" || !cmp.Equal(got.Feature.Outputs, []string{"out", "dev", "include", "lib"}) {
		t.Errorf("cuda11 leaf = %+v (conventional path must be left out)", got)
	}
	if got := leaves["cuda12"]; got.RelativePath != "libx/other/name.tar.gz" || !cmp.Equal(got.Feature.CudaVersionsInLib, []string{"12"}) {
		t.Errorf("cuda12 leaf = %+v", got)
	}
	if got := idx["r"]["9.9"]["src"].Packages["source"]["None"]; got.NarHash != "sha256-C" {
		t.Errorf("source leaf = %+v", got)
	}
	if ri := idx["r"]["9.9"]["libx"].ReleaseInfo; ri != (features.ReleaseInfo{License: "L", LicensePath: "libx/LICENSE.txt", Name: "X", Version: "1.2.3"}) {
		t.Errorf("releaseInfo = %+v", ri)
	}
	if _, err := features.MergeIndexes(idx, idx); err != nil {
		t.Errorf("merging identical indexes: %v", err)
	}
	other, _ := features.BuildIndex("r", "9.9", m, entries[:1])
	if _, err := features.MergeIndexes(idx, other); err == nil || !strings.Contains(err.Error(), "r 9.9 appears twice") {
		t.Errorf("merging conflicting indexes: err = %v", err)
	}
}
