// Package nixstyle checks the repository's Nix files for what can be
// checked without nixfmt: no formatter for Nix can be installed here
// (none in Debian's suites, none in the npm registry, none among Go
// modules), so scripts/test.sh cannot run `nixfmt --check`. These are
// the rules nixfmt (RFC 166 style) would also enforce, short of layout.
package nixstyle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// maxWidth is nixfmt's default line width.
const maxWidth = 100

// pending are files allowed to break the rules for now (none). The test
// fails once a listed file is clean, so the list only shrinks.
var pending = map[string]bool{}

// problems lists the style problems of one file's contents.
func problems(data []byte) []string {
	var out []string
	if len(data) > 0 && data[len(data)-1] != '\n' {
		out = append(out, "no final newline")
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		n := i + 1
		if strings.HasSuffix(line, "\r") {
			out = append(out, fmt.Sprintf("line %d: CRLF line ending", n))
			line = strings.TrimSuffix(line, "\r")
		}
		if strings.Contains(line, "\t") {
			out = append(out, fmt.Sprintf("line %d: tab", n))
		}
		if strings.TrimRight(line, " ") != line {
			out = append(out, fmt.Sprintf("line %d: trailing space", n))
		}
		if w := utf8.RuneCountInString(line); w > maxWidth {
			out = append(out, fmt.Sprintf("line %d: %d characters, over %d", n, w, maxWidth))
		}
	}
	return out
}

func TestProblems(t *testing.T) {
	long := strings.Repeat("x", maxWidth+1)
	for text, want := range map[string]int{
		"{ }\n":                              0,
		"{ }":                                1,
		"{\n\ta = 1;\n}\n":                   1,
		"{ a = 1; }  \n":                     1,
		long + "\n":                          1,
		strings.Repeat("é", maxWidth) + "\n": 0,
		"{ }\r\n":                            1,
	} {
		if got := problems([]byte(text)); len(got) != want {
			t.Errorf("problems(%q) = %q, want %d", text, got, want)
		}
	}
}

// TestNixFiles checks every *.nix file of the repository.
func TestNixFiles(t *testing.T) {
	root := testenv.RepoRoot()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// Not the repository's own Nix: vendored modules, caches,
			// build results and version control.
			switch {
			case rel == "vendor", rel == ".git", strings.HasPrefix(d.Name(), "result"), d.Name() == ".cache":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".nix") {
			return nil
		}
		seen++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found := problems(data)
		switch {
		case pending[rel] && len(found) == 0:
			t.Errorf("%s is clean now: remove it from pending", rel)
		case pending[rel]:
			t.Logf("%s: %d problems, pending its branch's merge", rel, len(found))
		default:
			for _, p := range found {
				t.Errorf("%s: %s", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 10 {
		t.Fatalf("found %d Nix files; the walk is broken", seen)
	}
	for rel := range pending {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			t.Errorf("pending %s: %v", rel, err)
		}
	}
}
