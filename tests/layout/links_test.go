package layout_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// mdLink matches an inline Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingAnchor gives the anchor GitHub makes of a heading: lower case,
// punctuation other than '-' and '_' dropped, spaces as '-'.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the heading anchors of a Markdown file, outside fenced
// code blocks, with GitHub's -1, -2 suffixes for repeated headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		a := headingAnchor(strings.TrimLeft(line, "#"))
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// codeSpan is inline code, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`]*`")

// withoutCode drops fenced code blocks and inline code spans.
func withoutCode(text string) string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			b.WriteString(codeSpan.ReplaceAllString(line, ""))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestDocLinksResolve: every relative link of README.md and docs/*.md
// names a file of the repository, and an anchor, when it has one, names a
// heading of that file. A moved or renamed section breaks no link
// silently.
func TestDocLinksResolve(t *testing.T) {
	root := testenv.RepoRoot()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, file)
		for _, m := range mdLink.FindAllStringSubmatch(withoutCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %s: %v", name, target, err)
					continue
				}
			}
			checked++
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", name, target, err)
				continue
			}
			if !anchors(string(text))[anchor] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", name, target, anchor, path)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d relative links, want at least 10 (README.md links into docs/)", checked)
	}
}

// TestHeadingAnchor: the anchors the link check compares with are
// GitHub's.
func TestHeadingAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		" Evaluation is confined":              "evaluation-is-confined",
		" `**` without globstar":               "-without-globstar",
		" The pinned nixpkgs: nixos-25.11":     "the-pinned-nixpkgs-nixos-2511",
		" Offline: what is and is not covered": "offline-what-is-and-is-not-covered",
	} {
		if got := headingAnchor(heading); got != want {
			t.Errorf("headingAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
	if a := anchors("# A\n```\n# B\n```\n# A\n"); !a["a"] || !a["a-1"] || a["b"] {
		t.Errorf("anchors: %v, want a and a-1, not b (in a code block)", a)
	}
}
