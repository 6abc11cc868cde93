package fixrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --fix writes no file through a symbolic link: a package file that is a
// link, or lies in a linked directory, would have its target rewritten,
// wherever it is.
func TestNotThroughLink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "real.nix"), []byte("{ }\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "plain.nix"), []byte("{ }\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "real.nix"), filepath.Join(root, "alias.nix")))
	must(os.Symlink(outside, filepath.Join(root, "linked")))
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	for file, wantLink := range map[string]string{
		"plain.nix":       "",
		"new.nix":         "",
		"sub/new.nix":     "",
		"alias.nix":       "alias.nix",
		"linked/real.nix": "linked",
		"linked/new.nix":  "linked",
	} {
		err := notThroughLink(root, file)
		switch {
		case wantLink == "" && err != nil:
			t.Errorf("%s: %v", file, err)
		case wantLink != "" && (err == nil || !strings.Contains(err.Error(), wantLink+" is a symbolic link")):
			t.Errorf("%s: got %v, want a refusal naming %s", file, err, wantLink)
		}
	}
}
