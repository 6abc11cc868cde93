package nixfix

import (
	"fmt"
	"slices"
	"strings"
)

// LicenceOf is the source text of the meta.license a package file gives
// buildRedist (`meta.license = X;`, or `license = X;` inside `meta = {
// ... };`); found is false when it gives none. An error when the file
// cannot be read as a buildRedist call.
func LicenceOf(text string) (expr string, found bool, err error) {
	s, err := locate(text)
	if err != nil {
		return "", false, err
	}
	if b, ok := s.binding("meta.license"); ok {
		return s.valueText(b), true, nil
	}
	if b, ok := s.binding("meta"); ok && s.is(b.value, "{") {
		if first, semi, ok := s.licenceInSet(b.value, s.match[b.value]); ok {
			return s.span(first, semi-1), true, nil
		}
	}
	return "", false, nil
}

// licenceInSet finds `license = X;` directly inside the set open..close:
// the first token of X and its ";".
func (s *source) licenceInSet(open, close int) (first, semi int, ok bool) {
	for i := open + 1; i < close; i++ {
		if s.is(i, "{") || s.is(i, "(") || s.is(i, "[") || s.is(i, "${") {
			i = s.match[i]
			continue
		}
		if s.toks[i].kind == kIdent && s.toks[i].text == "license" && s.is(i+1, "=") && (i == open+1 || s.is(i-1, ";")) {
			end, err := s.endOfValue(i+2, close)
			if err != nil {
				return 0, 0, false
			}
			return i + 2, end, true
		}
	}
	return 0, 0, false
}

// SetLicence gives the file meta.license = attr: it replaces the value
// of an existing meta.license, or adds the binding (inside `meta = {
// ... }` when the file has one, else as `meta.license` at the end of
// buildRedist's set), and adds the argument attr starts with (lib or
// _cuda) when the file does not take it. attr is a table attribute
// (lib/manifest/licence): an attribute path, written as is.
func SetLicence(text, attr string) (string, error) {
	s, err := locate(text)
	if err != nil {
		return text, refuse("cannot read it: %v", err)
	}
	root, _, _ := strings.Cut(attr, ".")
	var e edits
	switch b, ok := s.binding("meta.license"); {
	case ok:
		e.replace(s.toks[b.value].start, s.toks[b.semicolon-1].end, attr)
	default:
		if mb, ok := s.binding("meta"); ok && s.is(mb.value, "{") {
			if first, semi, ok := s.licenceInSet(mb.value, s.match[mb.value]); ok {
				e.replace(s.toks[first].start, s.toks[semi-1].end, attr)
				break
			}
			closeBrace := s.toks[s.match[mb.value]]
			e.insert(lineStart(text, closeBrace.start), indentOf(text, s.toks[mb.first].start)+"  license = "+attr+";\n")
			break
		}
		if len(s.bindings) == 0 {
			return text, refuse("buildRedist's set has no binding to place meta.license after")
		}
		last := s.bindings[len(s.bindings)-1]
		semi := s.toks[last.semicolon]
		e.insert(semi.end, "\n"+indentOf(text, s.toks[last.first].start)+"meta.license = "+attr+";")
	}
	if err := s.addFormal(&e, root); err != nil {
		return text, err
	}
	return e.apply(text)
}

// SwitchPname makes a file whose pname is the literal old give new from
// CUDA version since on (`pname = if cudaAtLeast "13.3" then "cccl" else
// "cuda_cccl";`, the shape of Nixpkgs' own renamed packages), taking
// cudaAtLeast as an argument. A pname that is not a plain string is left
// alone (refused): it is switched already, or computed.
func SwitchPname(text, old, new, since string) (string, error) {
	s, err := locate(text)
	if err != nil {
		return text, refuse("cannot read it: %v", err)
	}
	b, ok := s.binding("pname")
	if !ok || b.semicolon != b.value+1 || s.toks[b.value].kind != kString || !s.toks[b.value].plain || s.toks[b.value].value != old {
		return text, refuse("pname is not the string %q", old)
	}
	var e edits
	e.replace(s.toks[b.value].start, s.toks[b.value].end, fmt.Sprintf("if cudaAtLeast %s then %s else %s", quote(since), quote(new), quote(old)))
	if err := s.addFormal(&e, "cudaAtLeast"); err != nil {
		return text, err
	}
	return e.apply(text)
}

// addFormal adds name to the file's argument set when it lacks it.
func (s *source) addFormal(e *edits, name string) error {
	if slices.Contains(s.formals, name) {
		return nil
	}
	if s.formalsOpen < 0 {
		return refuse("the file takes no argument set to add %s to", name)
	}
	open := s.toks[s.formalsOpen]
	if strings.Contains(s.text[open.start:s.toks[s.formalsClose].end], "\n") {
		e.insert(open.end, "\n  "+name+",")
	} else {
		e.insert(open.end, " "+name+",")
	}
	return nil
}

// edits are replacements of the text, by byte offset (applyEdits).
type edits struct{ list []edit }

func (e *edits) replace(start, end int, text string) {
	e.list = append(e.list, edit{start, end, text})
}
func (e *edits) insert(at int, text string) { e.replace(at, at, text) }

// apply makes the edits and checks the result reads back as a
// buildRedist call.
func (e *edits) apply(text string) (string, error) {
	out, err := applyEdits(text, e.list)
	if err != nil {
		return text, refuse("%v", err)
	}
	if _, err := locate(out); err != nil {
		return text, refuse("the edited file would not read back (%v)", err)
	}
	return out, nil
}

// lineStart is the offset of the start of the line holding offset i.
func lineStart(text string, i int) int { return strings.LastIndexByte(text[:i], '\n') + 1 }

// indentOf is the white space that starts the line holding offset i.
func indentOf(text string, i int) string {
	start := lineStart(text, i)
	end := start
	for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return text[start:end]
}
