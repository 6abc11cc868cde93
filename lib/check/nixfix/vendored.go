package nixfix

import (
	"fmt"
	"strings"
)

// safePath is a path that needs no shell quoting in a bash array and no
// escaping in a Nix indented string: what NVIDIA's archives hold.
func safePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "-") || strings.Contains(p, "..") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._+-", r)) {
			return false
		}
	}
	return true
}

// ProposeRemovals returns the file's text with a postPatch that removes
// the given vendored libraries (paths in the archive, docs/vendored.md):
// a bash array rmPatterns listing them and a loop deleting each, the
// shape Nixpkgs' Nsight package files use. It refuses a file that has a
// postPatch already (the lines belong in it, by hand), a path it cannot
// write safely, and a file it cannot read back.
func ProposeRemovals(text string, paths []string) (string, error) {
	if len(paths) == 0 {
		return text, nil
	}
	for _, p := range paths {
		if !safePath(p) {
			return text, refuse("vendored library path %q cannot be written into a postPatch as is", p)
		}
	}
	src, err := locate(text)
	if err != nil {
		return text, refuse("cannot read it: %v", err)
	}
	if _, ok := src.binding("postPatch"); ok {
		return text, refuse("it has a postPatch: add the removal of %d vendored libraries to it by hand (print-vendored lists them)", len(paths))
	}
	fx := &fixer{src: src}
	anchor, ok := fx.anchor()
	if !ok {
		return text, refuse("buildRedist's set is empty")
	}
	indent := src.indentOf(src.toks[anchor.first].start)
	var b strings.Builder
	b.WriteString("postPatch = ''\n")
	line := func(s string) { b.WriteString(indent + "  " + s + "\n") }
	line("# Free libraries NVIDIA ships its own copies of (cuda-redist-find-features")
	line("# print-vendored); Nixpkgs' builds, in buildInputs, stand in for them.")
	// Each path in double quotes: the check reads a package file's
	// quoted strings as what it removes, so the next check counts these
	// as removed. The loop's unquoted $pattern still globs. -f: the list
	// holds the paths of every platform's archive, and one platform's
	// source lacks the others' (host-linux-x64/ beside host-linux-armv8/).
	line("rmPatterns=(")
	for _, p := range paths {
		line(`  "` + p + `"`)
	}
	line(")")
	line(`for pattern in "''${rmPatterns[@]}"; do`)
	line(`  rm -rfv -- $pattern`)
	line("done")
	b.WriteString(indent + "'';")
	out, err := applyEdits(text, []edit{fx.insertAfter(anchor, b.String())})
	if err != nil {
		return text, refuse("%v", err)
	}
	if _, err := locate(out); err != nil {
		return text, refuse("the edited file would not read back (%v)", err)
	}
	if strings.Count(out, "rmPatterns=(") != strings.Count(text, "rmPatterns=(")+1 {
		return text, fmt.Errorf("internal: the postPatch was not inserted once")
	}
	return out, nil
}
