package nixfix

import (
	"regexp"
	"slices"
	"strings"
)

// The shape of Nixpkgs' CUDA aliases file (pkgs/development/cuda-modules/
// aliases.nix) that AddAlias edits: a function of { lib } whose let binds
// the helper mkRenamed, returning an overlay `final: _:` that maps
// mkRenamed over one attribute set of entries
// `old = { path = "cudaPackages.new"; package = final.new; };`. The set is
// the file's last expression; its closing brace starts a line.

// AddAlias adds the entry of a package renamed from old to new to the
// attribute set of a CUDA aliases file, after its last entry, in the
// layout Nixpkgs' formatter gives them. added is false, and text is
// returned as it is, when the set has an entry for old already (the
// maintainer's, whatever it says). A file of another shape is refused
// (*Refusal) and left alone.
func AddAlias(text, old, new string) (out string, added bool, err error) {
	a, err := readAliases(text)
	if err != nil {
		return text, false, err
	}
	if slices.Contains(a.names, old) {
		return text, false, nil
	}
	closeBrace := a.toks[a.close]
	at := lineStart(text, closeBrace.start)
	if strings.TrimSpace(text[at:closeBrace.start]) != "" {
		return text, false, refuse("the closing brace of the set mkRenamed maps does not start a line")
	}
	in := indentOf(text, closeBrace.start) + "  "
	entry := "\n" + in + attrName(old) + " = {\n" +
		in + "  path = " + quote("cudaPackages."+new) + ";\n" +
		in + "  package = " + a.final + "." + attrName(new) + ";\n" +
		in + "};\n"
	out = text[:at] + entry + text[at:]
	if b, err := readAliases(out); err != nil || !slices.Contains(b.names, old) {
		return text, false, refuse("the edited file would not read back as an aliases file")
	}
	return out, true, nil
}

// AliasEntry is the entry AddAlias writes, on one line, for messages.
func AliasEntry(old, new string) string {
	return attrName(old) + " = { path = " + quote("cudaPackages."+new) + "; package = final." + attrName(new) + "; };"
}

// aliases is an aliases file located: the brace that closes its set, the
// name of the overlay's first argument (final) and the names the set binds.
type aliases struct {
	*source
	close int
	final string
	names []string
}

// readAliases locates an aliases file of the shape above, or refuses it
// naming what differs.
func readAliases(text string) (*aliases, error) {
	s, err := scan(text)
	if err != nil {
		return nil, refuse("cannot read it: %v", err)
	}
	open, err := s.aliasesSet()
	if err != nil {
		return nil, err
	}
	a := &aliases{source: s, close: s.match[open], final: s.toks[open-8].text}
	if a.names, err = s.entryNames(open+1, a.close); err != nil {
		return nil, err
	}
	return a, nil
}

// aliasesSet is the token index of the brace opening the set mkRenamed
// maps, after `{ lib }: let mkRenamed = ...; in final: _: builtins.mapAttrs
// mkRenamed`; the set closes the file.
func (s *source) aliasesSet() (int, error) {
	if !s.is(0, "{") || s.match[0] != 2 || !s.is(1, "lib") || !s.is(3, ":") {
		return 0, refuse("it is not a function of { lib }")
	}
	if !s.is(4, "let") || !s.bindsAtTop(5, "mkRenamed") {
		return 0, refuse("it has no let binding mkRenamed")
	}
	i := s.skipLet(4)
	// "" is any identifier: the overlay's arguments.
	if !s.matches(i, "", ":", "", ":", "builtins", ".", "mapAttrs", "mkRenamed", "{") || s.match[i+8] != len(s.toks)-1 {
		return 0, refuse("its overlay is not final: _: builtins.mapAttrs mkRenamed { ... }")
	}
	return i + 8, nil
}

// entryNames are the names the set's entries (tokens first..close-1)
// bind, each `NAME = ...;` with NAME an identifier or a plain string.
func (s *source) entryNames(first, close int) ([]string, error) {
	var names []string
	for j := first; j < close; {
		start := j
		for j < close && !s.is(j, "=") {
			j++
		}
		if j == close || j != start+1 || !s.isIdent(start) && !(s.toks[start].kind == kString && s.toks[start].plain) {
			return nil, refuse("the set mkRenamed maps has an entry that is not NAME = ...;")
		}
		name := s.toks[start].text
		if s.toks[start].kind == kString {
			name = s.toks[start].value
		}
		names = append(names, name)
		end, err := s.endOfValue(j+1, close)
		if err != nil {
			return nil, refuse("the set mkRenamed maps has an entry without \";\"")
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
