package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestIdentifyGoldenFiles identifies the project's own outputs and a
// manifest by their schemas: each satisfies its own format's schema and
// no other's.
func TestIdentifyGoldenFiles(t *testing.T) {
	golden := filepath.Join(testenv.RepoRoot(), "tests", "golden", "sample", "1.0.0")
	manifests, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(), "sample", "redistrib_*.json"))
	if len(manifests) == 0 {
		t.Fatal("no sample manifest")
	}
	cases := map[string]string{
		filepath.Join(golden, "buildRedist.json"):                           "buildredist",
		filepath.Join(golden, "detail.json"):                                "detail",
		filepath.Join(golden, "feature_1.0.0.json"):                         "legacy",
		filepath.Join(golden, "index.json"):                                 "index",
		manifests[0]:                                                        ManifestFormat,
		filepath.Join(testenv.RepoRoot(), "sample", "unpacked-hashes.json"): "unpacked-hashes",
	}
	for path, want := range cases {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Identify(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, []string{want}) {
			t.Errorf("%s: identified as %v, want [%s]", path, got, want)
		}
	}
	if err := Validate("yaml", map[string]any{}); err == nil {
		t.Error("unknown format accepted")
	}
}
