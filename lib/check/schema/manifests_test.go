package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestManifestSchemaAcceptsNixpkgsManifests: the manifest schema accepts
// every manifest Nixpkgs carries (217, pinned in tests/testdata), drift
// included: cuda13.1 variants, windows-arm64, an archive beside a variant.
func TestManifestSchemaAcceptsNixpkgsManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.NixpkgsManifests(t), "*", "redistrib_*.json"))
	if len(files) != 217 {
		t.Fatalf("%d manifests, want 217", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(ManifestFormat, doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestManifestSchemaDriftLookAlikes: what the parser refuses near the new
// shapes, the schema refuses too.
func TestManifestSchemaDriftLookAlikes(t *testing.T) {
	h := strings.Repeat("a", 64)
	leaf := `{"relative_path":"a","sha256":"` + h + `"}`
	good := []string{
		`{"p":{"version":"1","cuda_variant":["13.1"],"linux-x86_64":{"cuda13.1":` + leaf + `}}}`,
		`{"p":{"version":"1","windows-arm64":{"relative_path":"a","sha256":"` + h + `","cuda13":` + leaf + `}}}`,
	}
	bad := []string{
		`{"p":{"version":"1","cuda_variant":["13.1.2"]}}`,
		`{"p":{"version":"1","linux-x86_64":{"cuda13.1.2":` + leaf + `}}}`,
		`{"p":{"version":"1","windows-arm64":{"relative_path":"a","sha256":"` + h + `","url":"u","cuda13":` + leaf + `}}}`,
		`{"p":{"version":"1","windows-arm64":{"relative_path":"a","sha256":"` + h + `","cuda13":"x"}}}`,
		`{"p":{"version":"1","windows-arm65":` + leaf + `}}`,
	}
	for i, s := range append(good, bad...) {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		err = Validate(ManifestFormat, doc)
		if (err == nil) != (i < len(good)) {
			t.Errorf("%s: validation error %v, want one: %v", s, err, i >= len(good))
		}
	}
}
