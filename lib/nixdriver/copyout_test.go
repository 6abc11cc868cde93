package nixdriver

import (
	"os"
	"path/filepath"
	"testing"
)

// With --store, aggregate_<version> is a copy that CopyOutput keeps in
// step, removing the files the aggregate lacks; it may take over only an
// empty directory or one of its own earlier copies, never a directory of
// the user's that happens to have the name.
func TestIsEarlierCopy(t *testing.T) {
	base := t.TempDir()
	dir := func(name string, files ...string) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	for path, want := range map[string]bool{
		dir("empty"):                                   true,
		dir("copy", "index.json", "detail.json"):       true,
		dir("users", "notes"):                          false,
		filepath.Join(base, "missing"):                 false,
		dir("users-with-features", "feature_1.0.json"): false,
	} {
		if got := isEarlierCopy(path); got != want {
			t.Errorf("isEarlierCopy(%s) = %v, want %v", filepath.Base(path), got, want)
		}
	}
}
