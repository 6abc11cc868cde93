package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRuntimeLoadsSchema: a detail document whose library records carry
// runtime loads, as the detector writes them, is valid; an unknown
// confidence or evidence kind, or a load without evidence, is not.
func TestRuntimeLoadsSchema(t *testing.T) {
	loads := []features.RuntimeLoad{
		{Name: "libnvrtc.so.13", Confidence: "high", Evidence: []features.LoadEvidence{
			{Kind: "soname", Section: ".rodata", Offset: 0xa314783, String: "libnvrtc.so.13"},
			{Kind: "mention", Section: ".rodata", Offset: 0xa314800, String: "failed to load libnvrtc.so.13: %s"}}, EvidenceOmitted: 2},
		{Name: "libnuma.so.%s", Glob: "libnuma.so.*", Confidence: "high", Evidence: []features.LoadEvidence{{Kind: "template", Section: ".rodata", Offset: 1, String: "libnuma.so.%s"}}},
		{Name: "libtss2-esys.so.0", Confidence: "declared", Feature: "tpm", Description: "TPM", Priority: "suggested",
			Evidence: []features.LoadEvidence{{Kind: "note", Section: ".note.dlopen", Offset: 2, String: `{"soname":["libtss2-esys.so.0"]}`}}},
	}
	raw, err := json.Marshal(loads)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, edit string
		valid      bool
	}{
		{"as written", "", true},
		{"unknown confidence", `"confidence":"maybe"`, false},
		{"unknown kind", `"kind":"guess"`, false},
		{"no evidence", `"evidence":[]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(raw)
			switch {
			case strings.HasPrefix(tc.edit, `"confidence"`):
				text = strings.Replace(text, `"confidence":"high"`, tc.edit, 1)
			case strings.HasPrefix(tc.edit, `"kind"`):
				text = strings.Replace(text, `"kind":"template"`, tc.edit, 1)
			case tc.edit != "":
				text = `[{"name":"libx.so","confidence":"high",` + tc.edit + `}]`
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			doc := goldenDetail(t)
			lib := firstLibrary(t, doc)
			lib["runtimeLoads"] = v
			lib["runtimeLoadsOmitted"] = json.Number("3")
			err = Validate("detail", doc)
			if (err == nil) != tc.valid {
				t.Errorf("valid %v, error %v", tc.valid, err)
			}
		})
	}
}

// TestResolvedLoadsSchema: the aggregate's documents with resolved loads
// (detail.json, index.json, buildRedist.json) are valid; a provider kind
// the rules do not have is not.
func TestResolvedLoadsSchema(t *testing.T) {
	// The sample's detail.json (valid as it is), its libdemo_versioned
	// loading the runtime (another package) and the driver.
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "tests", "golden", "sample", "1.0.0", "detail.json"))
	if err != nil {
		t.Fatal(err)
	}
	var detail features.Detail
	if err := json.Unmarshal(data, &detail); err != nil {
		t.Fatal(err)
	}
	var entries []aggregate.Detected
	releases := map[string]features.ReleaseInfo{}
	for _, a := range manifest.DetailArchives(detail) {
		if a.Package == "libdemo_versioned" {
			ev := []features.LoadEvidence{{Kind: "soname", Section: ".rodata", Offset: 16, String: "libdemo_rt.so.1"}}
			a.Features.Libraries[0].RuntimeLoads = []features.RuntimeLoad{{Name: "libdemo_rt.so.1", Confidence: "high", Evidence: ev}, {Name: "libcuda.so.1", Confidence: "high", Evidence: ev}}
		}
		entries = append(entries, aggregate.Detected{DetectedArchive: manifest.DetectedArchive{Archive: a.Archive, Features: a.Features}})
		releases[a.Package] = features.ReleaseInfo{Version: "1.0.0"}
	}
	dir := t.TempDir()
	if err := aggregate.WriteDocuments(dir, "cuda", "13.0.0", releases, entries); err != nil {
		t.Fatal(err)
	}
	for file, format := range map[string]string{"detail.json": "detail", "index.json": "index", "buildRedist.json": "buildredist"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"cuda_demo_rt"`) || !strings.Contains(string(data), `"driver"`) {
			t.Errorf("%s has no resolved loads:\n%s", file, data)
		}
		for _, tc := range []struct {
			text  string
			valid bool
		}{{string(data), true}, {strings.ReplaceAll(string(data), `"driver"`, `"system"`), false}} {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(format, doc); (err == nil) != tc.valid {
				t.Errorf("%s: want valid %v, got %v", file, tc.valid, err)
			}
		}
	}
}
