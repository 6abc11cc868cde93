package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReport feeds arbitrary detail.json documents (beside the sample's
// index.json): reading fails with an error naming the file, or the report
// builds and renders; never a panic.
func FuzzReport(f *testing.F) {
	for _, v := range []string{"1.0.0", "2.0.0"} {
		data, err := os.ReadFile(filepath.Join(sampleDir(v), "detail.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"p": {"linux-x86_64": {"None": {"features": {"outputs": {}, "libraries": [{"kind": "shared", "soname": "a", "needed": ["a", "b"], "sassArchitectures": ["sm_x"], "ptxArchitectures": ["zz"]}]}}}}}`))
	index, err := os.ReadFile(filepath.Join(sampleDir("2.0.0"), "index.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, detail []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "index.json"), index, 0o644)
		os.WriteFile(filepath.Join(dir, "detail.json"), detail, 0o644)
		a, err := ReadAggregate(dir)
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte(dir)) {
				t.Errorf("error does not name the directory: %v", err)
			}
			return
		}
		old, err := ReadAggregate(sampleDir("1.0.0"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Build([]*Aggregate{old, a}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if err := r.Changes.WriteText(io.Discard, r.Redist); err != nil {
			t.Fatal(err)
		}
	})
}
