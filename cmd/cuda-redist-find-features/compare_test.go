package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeTree writes files (path → content; content "/" makes a directory).
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if body == "/" {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDiffTrees(t *testing.T) {
	want := writeTree(t, map[string]string{"same": "x\n", "changed": "a\nb\nc\n", "gone": "g", "kind": "file", "d/deep": "1\n"})
	got := writeTree(t, map[string]string{"same": "x\n", "changed": "a\nB\nc\n", "new": "n", "kind": "/", "d/deep": "1\n2\n"})
	diffs, err := diffTrees(want, got)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(diffs) // map order
	wantDiffs := []string{
		"changed:2:\n  want \"b\"\n  got  \"B\"",
		"d/deep:2:\n  want \"\"\n  got  \"2\"",
		"kind: type d---------, want ----------",
		"missing: gone",
		"unexpected: new",
	}
	if d := cmp.Diff(wantDiffs, diffs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	if diffs, err := diffTrees(want, want); err != nil || len(diffs) != 0 {
		t.Errorf("a tree against itself: %q, %v", diffs, err)
	}
	if _, err := diffTrees(want, filepath.Join(got, "nothing")); err == nil {
		t.Error("no error for a missing tree")
	}
}
