package nixlib

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExtractWritesTheLibraryOnce: the embedded library lands under
// cacheRoot/<hash> in the repository's layout (nix/cli.nix and
// ../lib/manifest/keys.json), equal to the checkout's files; a second
// call reuses it; a changed copy is replaced, not trusted.
func TestExtractWritesTheLibraryOnce(t *testing.T) {
	root := t.TempDir()
	dir, err := Extract(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"cli.nix", "pipeline.nix", "buildredist-standin.nix", "../lib/manifest/keys.json", "../lib/manifest/base-urls.json"} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatalf("extracted library: %v", err)
		}
		want, err := os.ReadFile(filepath.Join(".", rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the checkout's", rel)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("cache holds %d entries, want 1 (no temporary directory left)", len(entries))
	}
	cli := filepath.Join(dir, "cli.nix")
	before, _ := os.Stat(cli)
	again, err := Extract(root)
	if err != nil || again != dir {
		t.Fatalf("second Extract: %q %v, want %q", again, err, dir)
	}
	if after, _ := os.Stat(cli); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second Extract rewrote the library")
	}
	os.Chmod(cli, 0o644)
	os.WriteFile(cli, []byte("changed"), 0o644)
	if _, err := Extract(root); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(cli); string(got) == "changed" {
		t.Errorf("a changed library was reused")
	}
}
