package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
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
