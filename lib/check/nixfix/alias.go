package nixfix

import (
	"regexp"
	"slices"
	"strings"
)

// The shapes of Nixpkgs' CUDA aliases file (pkgs/development/cuda-modules/
// aliases.nix) that AddAlias edits: a function of { lib } whose let binds
// the helper mkRenamed, returning an overlay `final: prev:` (any two
// names) that is either
//
//	builtins.mapAttrs mkRenamed { ... }
//
// (entries `old = { path = "cudaPackages.new"; package = final.new; };`,
// each warning whenever it is used), or that set merged with a set of
// aliases written out:
//
//	(builtins.mapAttrs mkRenamed { ... }) // { ... }
//
// The last set closes the file. A package NVIDIA renamed in some CUDA
// release is an alias of the second kind: its old name is the right one
// for the releases before, so it warns only from the release on.

// AddAlias adds the alias of a package NVIDIA renamed from old to new in
// CUDA since (major.minor) to an aliases file: into the set merged after
// mkRenamed's, made when the file has none, in the layout Nixpkgs'
// formatter gives it. The alias is the new package for every CUDA
// version; it warns from since on. added is false, and text is returned
// as it is, when either set has an entry for old already (the
// maintainer's, whatever it says). A file of another shape is refused
// (*Refusal) and left alone.
func AddAlias(text, old, new, since string) (out string, added bool, err error) {
	a, err := readAliases(text)
	if err != nil {
		return text, false, err
	}
	if slices.Contains(a.names, old) {
		return text, false, nil
	}
	entry := aliasEntry(a.final, old, new, since)
	if a.merged < 0 {
		out = a.withMergedSet(entry)
	} else if out, err = a.intoMergedSet(entry); err != nil {
		return text, false, err
	}
	if b, err := readAliases(out); err != nil || b.merged < 0 || !slices.Contains(b.names, old) {
		return text, false, refuse("the edited file would not read back as an aliases file")
	}
	return out, true, nil
}

// withMergedSet is the file with mkRenamed's set put in parentheses and
// merged with a new set holding entry.
func (a *aliases) withMergedSet(entry string) string {
	first, last := a.toks[a.mapAttrs], a.toks[a.renamed]
	return a.text[:first.start] + "(" + a.text[first.start:last.end] + ")\n// {\n" + indented(entry, "  ") + "}" + a.text[last.end:]
}

// intoMergedSet is the file with entry added after
// the merged set's last entry; the set's closing brace starts a line,
// or the set is empty.
func (a *aliases) intoMergedSet(entry string) (string, error) {
	open, close := a.toks[a.merged], a.toks[a.match[a.merged]]
	at := lineStart(a.text, close.start)
	if strings.TrimSpace(a.text[at:close.start]) != "" {
		if a.match[a.merged] != a.merged+1 {
			return "", refuse("the closing brace of the set merged after mkRenamed's does not start a line")
		}
		// { } on one line: the entry goes on lines of its own.
		indent := indentOf(a.text, open.start)
		return a.text[:open.end] + "\n" + indented(entry, indent+"  ") + indent + a.text[close.start:], nil
	}
	if a.match[a.merged] != a.merged+1 {
		entry = "\n" + entry // a blank line after the last entry
	}
	return a.text[:at] + indented(entry, indentOf(a.text, close.start)+"  ") + a.text[at:], nil
}

// indented is text with indent before each of its lines.
func indented(text, indent string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "")
}

// aliasEntry is the alias of a package renamed from old to new in CUDA
// since, final being the overlay's first argument, in lines ending in
// "\n" that the caller indents.
func aliasEntry(final, old, new, since string) string {
	pkg := final + "." + attrName(new)
	lines := []string{
		attrName(old) + " =",
		"  # Before CUDA " + since + " NVIDIA named it " + old + ": the alias is silent there.",
		"  if " + final + ".cudaAtLeast " + quote(since) + " then",
		"    lib.warn " + quote(aliasWarning(old, new, since)) + " " + pkg,
		"  else",
		"    " + pkg + ";",
	}
	return strings.Join(lines, "\n") + "\n"
}

// aliasWarning is what the alias says when used from the renaming
// release on.
func aliasWarning(old, new, since string) string {
	return "cudaPackages." + old + " is cudaPackages." + new + " since CUDA " + since + ": use that name"
}

// AliasEntry is the entry AddAlias writes, on one line, for messages.
func AliasEntry(old, new, since string) string {
	pkg := "final." + attrName(new)
	return attrName(old) + " = if final.cudaAtLeast " + quote(since) + " then lib.warn " + quote(aliasWarning(old, new, since)) + " " + pkg + " else " + pkg + ";"
}

// aliases is an aliases file located: the tokens of `builtins` in
// `builtins.mapAttrs mkRenamed` and of the brace closing mkRenamed's set,
// the brace opening the merged set (-1 when there is none), the name of
// the overlay's first argument (final) and the names the sets bind.
type aliases struct {
	*source
	mapAttrs, renamed, merged int
	final                     string
	names                     []string
}

// readAliases locates an aliases file of the shapes above, or refuses it
// naming what differs.
func readAliases(text string) (*aliases, error) {
	s, err := scan(text)
	if err != nil {
		return nil, refuse("cannot read it: %v", err)
	}
	a, err := s.aliasesSets()
	if err != nil {
		return nil, err
	}
	open := a.match[a.renamed]
	if a.names, err = s.entryNames(open+1, a.renamed, "the set mkRenamed maps"); err != nil {
		return nil, err
	}
	if a.merged >= 0 {
		more, err := s.entryNames(a.merged+1, a.match[a.merged], "the set merged after mkRenamed's")
		if err != nil {
			return nil, err
		}
		a.names = append(a.names, more...)
	}
	return a, nil
}

// aliasesSets locates the sets of `{ lib }: let mkRenamed = ...; in
// final: _:` followed by one of the two overlays above.
func (s *source) aliasesSets() (*aliases, error) {
	if !s.is(0, "{") || s.match[0] != 2 || !s.is(1, "lib") || !s.is(3, ":") {
		return nil, refuse("it is not a function of { lib }")
	}
	if !s.is(4, "let") || !s.bindsAtTop(5, "mkRenamed") {
		return nil, refuse("it has no let binding mkRenamed")
	}
	i := s.skipLet(4)
	last := len(s.toks) - 1
	// "" is any identifier: the overlay's arguments.
	if !s.matches(i, "", ":", "", ":") {
		return nil, refuse("its overlay is not a function final: prev:")
	}
	a := &aliases{source: s, final: s.toks[i].text, merged: -1}
	if !a.overlaySets(i+4, last) {
		return nil, refuse("its overlay is neither builtins.mapAttrs mkRenamed { ... } nor (builtins.mapAttrs mkRenamed { ... }) // { ... }")
	}
	return a, nil
}

// overlaySets locates the sets of the overlay's body, tokens i..last,
// and says whether it is one of the two shapes.
func (a *aliases) overlaySets(i, last int) bool {
	mapAttrs := []string{"builtins", ".", "mapAttrs", "mkRenamed", "{"}
	if a.matches(i, mapAttrs...) && a.match[i+4] == last {
		a.mapAttrs, a.renamed = i, last
		return true
	}
	if !a.is(i, "(") || !a.matches(i+1, mapAttrs...) || a.match[i] != a.match[i+5]+1 {
		return false
	}
	closeParen := a.match[i]
	if !a.is(closeParen+1, "//") || !a.is(closeParen+2, "{") || a.match[closeParen+2] != last {
		return false
	}
	a.mapAttrs, a.renamed, a.merged = i+1, a.match[i+5], closeParen+2
	return true
}

// entryNames are the names a set's entries (tokens first..close-1) bind,
// each `NAME = ...;` with NAME an identifier or a plain string; which
// names the set in a refusal.
func (s *source) entryNames(first, close int, which string) ([]string, error) {
	var names []string
	for j := first; j < close; {
		start := j
		for j < close && !s.is(j, "=") {
			j++
		}
		if j == close || j != start+1 || !s.isIdent(start) && !(s.toks[start].kind == kString && s.toks[start].plain) {
			return nil, refuse("%s has an entry that is not NAME = ...;", which)
		}
		name := s.toks[start].text
		if s.toks[start].kind == kString {
			name = s.toks[start].value
		}
		names = append(names, name)
		end, err := s.endOfValue(j+1, close)
		if err != nil {
			return nil, refuse("%s has an entry without \";\"", which)
		}
		j = end + 1
	}
	return names, nil
}

// matches says whether the tokens from i on are pattern's, "" matching
// any identifier.
func (s *source) matches(i int, pattern ...string) bool {
	for k, p := range pattern {
		if p == "" && !s.isIdent(i+k) || p != "" && !s.is(i+k, p) {
			return false
		}
	}
	return true
}

func (s *source) isIdent(i int) bool { return i < len(s.toks) && s.toks[i].kind == kIdent }

// bindsAtTop says whether the let whose bindings start at token i binds
// name (at its own level, not inside a value).
func (s *source) bindsAtTop(i int, name string) bool {
	for j := i; j < len(s.toks) && !s.is(j, "in"); {
		if s.is(j, name) && s.is(j+1, "=") {
			return true
		}
		for j < len(s.toks) && !s.is(j, "=") && !s.is(j, "in") {
			j++
		}
		end, err := s.endOfValue(j+1, len(s.toks))
		if err != nil {
			return false
		}
		j = end + 1
	}
	return false
}

// identifier is a name Nix reads unquoted as an attribute.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_'-]*$`)

// nixKeywords cannot be attribute names unquoted.
var nixKeywords = []string{"assert", "else", "if", "in", "inherit", "let", "or", "rec", "then", "with"}

// attrName is name as an attribute name: itself, or quoted.
func attrName(name string) string {
	if identifier.MatchString(name) && !slices.Contains(nixKeywords, name) {
		return name
	}
	return quote(name)
}
