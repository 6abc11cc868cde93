package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestArchitectureNames: the detail format takes generic, family (f) and
// architecture-specific (a) target names and fatbin warnings, and refuses
// other suffixes.
func TestArchitectureNames(t *testing.T) {
	for _, tc := range []struct {
		arch string
		ok   bool
	}{
		{"sm_90", true}, {"sm_90a", true}, {"sm_100f", true}, {"sm_121a", true}, {"sm_120f", true},
		{"sm_100x", false}, {"sm_100af", false}, {"compute_100f", false}, {"sm_", false},
	} {
		doc := goldenDetail(t)
		lib := firstLibrary(t, doc)
		for _, field := range []string{"cudaArchitectures", "sassArchitectures", "ptxArchitectures"} {
			lib[field] = []any{"sm_75", tc.arch}
		}
		lib["fatbinWarnings"] = []any{"flag bits 0x4 not understood (elf sm_90): 1 entry"}
		err := Validate("detail", doc)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want accepted %v", tc.arch, err, tc.ok)
		}
	}
}

func goldenDetail(t *testing.T) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(testenv.RepoRoot(), "tests", "golden", "sample", "1.0.0", "detail.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc.(map[string]any)
}

// firstLibrary finds the first object with a sassArchitectures field.
func firstLibrary(t *testing.T, doc any) map[string]any {
	t.Helper()
	var find func(any) map[string]any
	find = func(v any) map[string]any {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["sassArchitectures"]; ok {
				return x
			}
			for _, c := range x {
				if l := find(c); l != nil {
					return l
				}
			}
		case []any:
			for _, c := range x {
				if l := find(c); l != nil {
					return l
				}
			}
		}
		return nil
	}
	lib := find(doc)
	if lib == nil {
		t.Fatal("no library in the golden detail.json")
	}
	return lib
}
