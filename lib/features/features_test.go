package features_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
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
