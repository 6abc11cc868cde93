package nixpipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestFeaturesNamesMatchEntryDerivations: manifestFeatures names
// its fetch, unpack and detect derivations without the sanitize regex and
// cuts the usual suffixes with substring (nix/pipeline.nix, validStemOf),
// because the regexes were most of the evaluation cost per archive. The
// names must stay those of the general path (entryDerivations: sanitize,
// stemOf), or every drvPath would change: compared here for every archive
// of the bundled manifests and of a manifest holding each known suffix,
// none, and suffixes inside a name.
func TestManifestFeaturesNamesMatchEntryDerivations(t *testing.T) {
	requireNix(t)
	dir := t.TempDir()
	sha := strings.Repeat("a", 64)
	names := []string{
		"p-1.tar.xz", "p-1.tar.gz", "p-1.tgz", "p-1.tar.bz2", "p-1.tbz2", "p-1.tar.zst", "p-1.tzst",
		"p-1.tar", "p-1.zip", "p-1.whl", "p-1", "p-1.tar.xz.zip", "p.zip.tar.xz",
		"p.tar.xz.tar", "x.tar.xz", "xz", "p_1+2.tar.xz", "a.b.c.7z",
	}
	m := map[string]any{"release_date": "2025-01-01"}
	for i, n := range names {
		m["pkg"+string(rune('a'+i))] = map[string]any{
			"name":         "P",
			"license":      "L",
			"version":      "1",
			"linux-x86_64": map[string]any{"relative_path": "dir/" + n, "sha256": sha},
			"linux-sbsa": map[string]any{
				"cuda12": map[string]any{"relative_path": n, "sha256": sha},
			},
			"cuda_variant": []string{"12"},
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redistrib_1.0.0.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	expr := filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "names.nix")
	out := mustNix(t, "nix-instantiate", "--eval", "--strict", "--json", expr,
		"--argstr", "repo", repoRoot(), "--argstr", "detectorProgram", detectorBinary(t),
		"--argstr", "aggregateProgram", aggregateBinary(t), "--argstr", "dir", dir)
	var got struct {
		Count      int               `json:"count"`
		Mismatches []json.RawMessage `json:"mismatches"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("compared the names of %d archives", got.Count)
	if got.Count < 600+2*len(names) {
		t.Errorf("compared only %d archives", got.Count)
	}
	for _, m := range got.Mismatches {
		t.Errorf("names differ: %s", m)
	}
}
