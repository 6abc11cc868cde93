package nixfix

import (
	"fmt"
	"strings"
)

// source is a package file located: its tokens, the bindings of the
// attribute set passed to buildRedist, and its outputs expression.
type source struct {
	text string
	all  []token // with comments
	toks []token // without comments
	// match maps the index (in toks) of each bracket to its partner.
	match map[int]int
	// formalsOpen and formalsClose are the braces of the file's
	// argument set, -1 when the file does not start with one.
	formalsOpen, formalsClose int
	formals                   []string
	// formalStarts and formalEnds are the token indices of each formal's
	// name and last token (its default's, when it has one).
	formalStarts, formalEnds []int
	// attrsOpen and attrsClose are the braces of buildRedist's set.
	attrsOpen, attrsClose int
	bindings              []binding
	// inherited are the names "inherit" binds in buildRedist's set.
	inherited []string
}

// binding is one "path = value;" (or "inherit ...;") of buildRedist's
// set: token indices of its first token, its value and its ";".
type binding struct {
	name                    string // the attribute path, "inherit" for inherit
	first, value, semicolon int
}

// locate tokenizes and locates a package file.
func locate(text string) (*source, error) {
	s, err := scan(text)
	if err != nil {
		return nil, err
	}
	s.findFormals()
	if err := s.findCall(); err != nil {
		return nil, err
	}
	return s, s.findBindings()
}

// scan tokenizes a Nix file and pairs its brackets; nothing is located.
func scan(text string) (*source, error) {
	all, err := tokenize(text)
	if err != nil {
		return nil, err
	}
	s := &source{text: text, all: all, match: map[int]int{}, formalsOpen: -1, formalsClose: -1}
	for _, t := range all {
		if t.kind != kComment {
			s.toks = append(s.toks, t)
		}
	}
	if err := s.matchBrackets(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *source) is(i int, text string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind != kString && s.toks[i].text == text
}

// matchBrackets pairs { } [ ] ( ) and ${ }.
func (s *source) matchBrackets() error {
	var stack []int
	closer := map[string]string{"{": "}", "${": "}", "[": "]", "(": ")"}
	for i, t := range s.toks {
		if t.kind != kPunct {
			continue
		}
		switch t.text {
		case "{", "${", "[", "(":
			stack = append(stack, i)
		case "}", "]", ")":
			if len(stack) == 0 || closer[s.toks[stack[len(stack)-1]].text] != t.text {
				return fmt.Errorf("offset %d: unbalanced %q", t.start, t.text)
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.match[open], s.match[i] = i, open
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("offset %d: %q is never closed", s.toks[stack[len(stack)-1]].start, s.toks[stack[len(stack)-1]].text)
	}
	return nil
}

// findFormals finds the file's leading "{ a, b ? x, }:" argument set.
func (s *source) findFormals() {
	if !s.is(0, "{") {
		return
	}
	end := s.match[0]
	if !s.is(end+1, ":") {
		return
	}
	s.formalsOpen, s.formalsClose = 0, end
	expectName := true
	for i := 1; i < end; i++ {
		switch {
		case s.toks[i].kind == kPunct && (s.toks[i].text == "{" || s.toks[i].text == "(" || s.toks[i].text == "[" || s.toks[i].text == "${"):
			i = s.match[i]
		case s.is(i, ","):
			expectName = true
			continue
		case expectName && s.toks[i].kind == kIdent:
			s.formals = append(s.formals, s.toks[i].text)
			s.formalStarts = append(s.formalStarts, i)
			s.formalEnds = append(s.formalEnds, i)
			expectName = false
			continue
		}
		if !expectName && len(s.formalEnds) > 0 {
			s.formalEnds[len(s.formalEnds)-1] = i
		}
	}
}

// findCall finds buildRedist's set: `buildRedist {`, `buildRedist rec {`,
// `buildRedist (finalAttrs: {` and `buildRedist (finalAttrs: let ... in {`.
func (s *source) findCall() error {
	for i := s.formalsClose + 1; i < len(s.toks); i++ {
		if s.toks[i].kind != kIdent || s.toks[i].text != "buildRedist" {
			continue
		}
		j := i + 1
		if s.is(j, "(") {
			j++
			if j+1 < len(s.toks) && s.toks[j].kind == kIdent && s.is(j+1, ":") {
				j += 2
			}
			if s.is(j, "let") {
				j = s.skipLet(j)
			}
		}
		if s.is(j, "rec") {
			j++
		}
		if s.is(j, "{") {
			s.attrsOpen, s.attrsClose = j, s.match[j]
			return nil
		}
	}
	return fmt.Errorf("no buildRedist call with an attribute set (buildRedist { ... } or buildRedist (finalAttrs: { ... }))")
}

// skipLet returns the index after the "in" that closes the "let" at i.
func (s *source) skipLet(i int) int {
	depth := 0
	for ; i < len(s.toks); i++ {
		if s.toks[i].kind != kIdent {
			continue
		}
		switch s.toks[i].text {
		case "let":
			depth++
		case "in":
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// endOfValue returns the index of the ";" that ends the value starting
// at i: brackets are skipped whole, a let's own ";"s up to its "in",
// and with/assert each own the next ";".
func (s *source) endOfValue(i, limit int) (int, error) {
	pending := 0
	for ; i < limit; i++ {
		t := s.toks[i]
		switch {
		case t.kind == kPunct && (t.text == "{" || t.text == "(" || t.text == "[" || t.text == "${"):
			i = s.match[i]
		case t.kind == kIdent && t.text == "let":
			i = s.skipLet(i) - 1
		case t.kind == kIdent && (t.text == "with" || t.text == "assert"):
			pending++
		case s.is(i, ";"):
			if pending == 0 {
				return i, nil
			}
			pending--
		}
	}
	return 0, fmt.Errorf("offset %d: a binding of buildRedist's set has no \";\"", s.toks[min(i, len(s.toks)-1)].start)
}

// findBindings lists the bindings of buildRedist's set.
func (s *source) findBindings() error {
	for i := s.attrsOpen + 1; i < s.attrsClose; {
		b := binding{first: i}
		var path []string
		for ; i < s.attrsClose && !s.is(i, "=") && !(s.is(b.first, "inherit") && s.is(i, ";")); i++ {
			switch {
			case s.is(i, "${"):
				path = append(path, s.interpolatedName(i))
				i = s.match[i]
			case s.is(i, "(") && s.is(b.first, "inherit"):
				i = s.match[i]
			case s.toks[i].kind == kString:
				path = append(path, stringName(s.toks[i]))
			case s.toks[i].kind != kPunct:
				path = append(path, s.toks[i].text)
			}
		}
		b.name = strings.Join(path, ".")
		if s.is(b.first, "inherit") {
			s.inherited = append(s.inherited, path[1:]...)
			b.name, b.value, b.semicolon = "inherit", b.first+1, i
			s.bindings = append(s.bindings, b)
			i++
			continue
		}
		if i >= s.attrsClose {
			return fmt.Errorf("offset %d: a binding of buildRedist's set has no \"=\"", s.toks[b.first].start)
		}
		end, err := s.endOfValue(i+1, s.attrsClose)
		if err != nil {
			return err
		}
		b.value, b.semicolon = i+1, end
		s.bindings = append(s.bindings, b)
		i = end + 1
	}
	return nil
}

// dynamicName stands for an attribute name computed by an
// interpolation: no name the fixer looks up is equal to it.
const dynamicName = "${…}"

// stringName is the attribute name a string token spells: Nix reads
// `"postPatch" = …` as postPatch, so the fixer must too, or it adds a
// second postPatch beside it. A string with an interpolation is computed.
func stringName(t token) string {
	if !t.plain {
		return dynamicName
	}
	return t.value
}

// interpolatedName is the name of the attribute `${ … }` at token i: the
// string, when the braces hold one string without interpolation
// (`${"postPatch"}`, a static name too), else dynamicName.
func (s *source) interpolatedName(i int) string {
	end := s.match[i]
	if end == i+2 && s.toks[i+1].kind == kString {
		return stringName(s.toks[i+1])
	}
	return dynamicName
}

// binding returns the binding of name, if the set has one.
func (s *source) binding(name string) (binding, bool) {
	for _, b := range s.bindings {
		if b.name == name {
			return b, true
		}
	}
	return binding{}, false
}

// valueText is the source text of a binding's value.
func (s *source) valueText(b binding) string { return s.span(b.value, b.semicolon-1) }

// span is the source text of tokens first..last ("" when empty).
func (s *source) span(first, last int) string {
	if first > last || first < 0 || last >= len(s.toks) {
		return ""
	}
	return s.text[s.toks[first].start:s.toks[last].end]
}

// literalBool returns the value of a binding that is a literal
// true/false.
func (s *source) literalBool(b binding) (value, ok bool) {
	if b.semicolon != b.value+1 || s.toks[b.value].kind != kIdent {
		return false, false
	}
	switch s.toks[b.value].text {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// term is one operand of the outputs expression's "++" chain: a list
// literal, `lib.optionals COND [ ... ]`, or something else (opaque).
type term struct {
	// cond is the condition's source text; "" for an unconditional list.
	cond string
	// first and last are the term's token indices; open and close the
	// brackets of its list (-1 when opaque).
	first, last, open, close int
	// condFirst and condLast are the condition's tokens.
	condFirst, condLast int
	elems               []elem
	opaque              bool
}

// elem is one string of a list: its token index and value.
type elem struct {
	tok   int
	value string
}

// terms splits the outputs value into its "++" operands.
func (s *source) terms(b binding) []term {
	var out []term
	start := b.value
	for i := b.value; i <= b.semicolon; i++ {
		if i < b.semicolon && s.toks[i].kind == kPunct && (s.toks[i].text == "{" || s.toks[i].text == "(" || s.toks[i].text == "[" || s.toks[i].text == "${") {
			i = s.match[i]
			continue
		}
		if i == b.semicolon || s.is(i, "++") {
			out = append(out, s.term(start, i-1))
			start = i + 1
		}
	}
	return out
}

// term reads the operand from token first to last.
func (s *source) term(first, last int) term {
	t := term{first: first, last: last, open: -1, close: -1, opaque: true}
	i := first
	if s.is(i, "[") && s.match[i] == last {
		t.open, t.close, t.opaque = i, last, false
	} else {
		// lib.optionals, lib.lists.optionals or optionals.
		for i+2 <= last && s.toks[i].kind == kIdent && s.is(i+1, ".") {
			i += 2
		}
		if i > last || s.toks[i].kind != kIdent || s.toks[i].text != "optionals" || !s.is(last, "]") {
			return t
		}
		condFirst := i + 1
		open := s.match[last]
		if open <= condFirst || !s.isCondition(condFirst, open-1) {
			return t
		}
		t.cond = s.span(condFirst, open-1)
		t.condFirst, t.condLast = condFirst, open-1
		t.open, t.close, t.opaque = open, last, false
	}
	for j := t.open + 1; j < t.close; j++ {
		if s.toks[j].kind != kString || !s.toks[j].plain {
			t.opaque = true
			return t
		}
		t.elems = append(t.elems, elem{tok: j, value: s.toks[j].value})
	}
	return t
}

// isCondition: tokens first..last are one parenthesized expression or a
// dotted name (flags.isJetsonBuild).
func (s *source) isCondition(first, last int) bool {
	if s.is(first, "(") {
		return s.match[first] == last
	}
	for i := first; i <= last; i++ {
		if (i-first)%2 == 0 && s.toks[i].kind != kIdent || (i-first)%2 == 1 && !s.is(i, ".") {
			return false
		}
	}
	return (last-first)%2 == 0
}
