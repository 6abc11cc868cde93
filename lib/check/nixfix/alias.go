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
	// { lib }:
	if !s.is(0, "{") || s.match[0] != 2 || !s.is(1, "lib") || !s.is(3, ":") {
		return nil, refuse("it is not a function of { lib }")
	}
	if !s.is(4, "let") || !s.bindsAtTop(5, "mkRenamed") {
		return nil, refuse("it has no let binding mkRenamed")
	}
	i := s.skipLet(4)
	// final: _: builtins.mapAttrs mkRenamed {
	if !s.isIdent(i) || !s.is(i+1, ":") || !s.isIdent(i+2) || !s.is(i+3, ":") ||
		!s.is(i+4, "builtins") || !s.is(i+5, ".") || !s.is(i+6, "mapAttrs") || !s.is(i+7, "mkRenamed") || !s.is(i+8, "{") ||
		s.match[i+8] != len(s.toks)-1 {
		return nil, refuse("its overlay is not final: _: builtins.mapAttrs mkRenamed { ... }")
	}
	a := &aliases{source: s, close: len(s.toks) - 1, final: s.toks[i].text}
	for j := i + 9; j < a.close; {
		first := j
		for j < a.close && !s.is(j, "=") {
			j++
		}
		if j == a.close || j != first+1 || !s.isIdent(first) && !(s.toks[first].kind == kString && s.toks[first].plain) {
			return nil, refuse("the set mkRenamed maps has an entry that is not NAME = ...;")
		}
		name := s.toks[first].text
		if s.toks[first].kind == kString {
			name = s.toks[first].value
		}
		a.names = append(a.names, name)
		end, err := s.endOfValue(j+1, a.close)
		if err != nil {
			return nil, refuse("the set mkRenamed maps has an entry without \";\"")
		}
		j = end + 1
	}
	return a, nil
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
