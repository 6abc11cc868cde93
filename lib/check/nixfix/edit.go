package nixfix

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixstring"
)

// edit replaces the bytes [start, end) with text.
type edit struct {
	start, end int
	text       string
}

// applyEdits applies non-overlapping edits to text.
func applyEdits(text string, edits []edit) (string, error) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.start < pos || e.end < e.start || e.end > len(text) {
			return "", fmt.Errorf("edits overlap at offset %d", e.start)
		}
		b.WriteString(text[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}

func quote(s string) string { return nixstring.Quote(s) }

// nixInline is a list on one line: [ "a" "b" ], [ ] when empty.
func nixInline(items []string) string {
	if len(items) == 0 {
		return "[ ]"
	}
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
	}
	return "[ " + strings.Join(q, " ") + " ]"
}

// nixExpanded is a list with one item a line, as nixfmt writes a list of
// two or more: items at indent plus two spaces, "]" at indent.
func nixExpanded(items []string, indent string) string {
	var b strings.Builder
	b.WriteString("[\n")
	for _, s := range items {
		b.WriteString(indent + "  " + quote(s) + "\n")
	}
	b.WriteString(indent + "]")
	return b.String()
}

// lineStart is the offset of the start of the line holding pos.
func (s *source) lineStart(pos int) int { return strings.LastIndexByte(s.text[:pos], '\n') + 1 }

// lineEnd is the offset of the newline ending the line holding pos (or
// the end of the text).
func (s *source) lineEnd(pos int) int {
	if i := strings.IndexByte(s.text[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(s.text)
}

// indentOf is the leading whitespace of the line holding pos.
func (s *source) indentOf(pos int) string {
	ls := s.lineStart(pos)
	i := ls
	for i < len(s.text) && (s.text[i] == ' ' || s.text[i] == '\t') {
		i++
	}
	return s.text[ls:i]
}

// ownLine: only whitespace precedes pos on its line.
func (s *source) ownLine(pos int) bool {
	return strings.TrimSpace(s.text[s.lineStart(pos):pos]) == ""
}

// hasComment: a comment lies between the offsets.
func (s *source) hasComment(start, end int) bool {
	for _, t := range s.all {
		if t.kind == kComment && t.start >= start && t.end <= end {
			return true
		}
	}
	return false
}

// apply turns a plan into the edited text.
func (fx *fixer) apply(p *plan) (string, error) {
	var edits []edit
	for ti, list := range p.lists {
		e, err := fx.listEdit(fx.terms[ti], list)
		if err != nil {
			return "", err
		}
		edits = append(edits, e...)
	}
	for _, sp := range p.splits {
		edits = append(edits, fx.appendTerm(sp))
	}
	for _, f := range p.formals {
		e, err := fx.addFormal(f)
		if err != nil {
			return "", err
		}
		edits = append(edits, e)
	}
	if p.create != nil {
		e, err := fx.createOutputs(p.create)
		if err != nil {
			return "", err
		}
		edits = append(edits, e)
	}
	flagEdits, err := fx.flagEdits(p)
	if err != nil {
		return "", err
	}
	return applyEdits(fx.src.text, append(edits, flagEdits...))
}

// listEdit rewrites one term's list. A list keeps its layout (one line,
// or one item a line) unless nixfmt would change it: a one-line list
// that grows to two or more items is expanded, an expanded list that
// shrinks to one is put on one line. A branch whose list ends up empty
// is removed with its "++" (so is an emptied list among others); a list
// with a comment inside is not rewritten.
func (fx *fixer) listEdit(t term, list []string) ([]edit, error) {
	s := fx.src
	open, close := s.toks[t.open], s.toks[t.close]
	if s.hasComment(open.end, close.start) {
		return nil, fmt.Errorf("%s has a comment inside; edit it by hand", describe(t))
	}
	if len(list) == 0 && len(fx.terms) > 1 {
		return []edit{fx.dropTerm(t)}, nil
	}
	expanded := strings.Contains(s.text[open.start:close.end], "\n")
	var text string
	switch {
	case len(list) <= 1:
		text = nixInline(list)
	case expanded && len(t.elems) > 0:
		text = "[\n" + indentItems(list, s.indentOf(s.toks[t.elems[0].tok].start)) + s.indentOf(close.start) + "]"
	case len(t.elems) >= 2:
		text = nixInline(list)
	default:
		text = nixExpanded(list, s.indentOf(open.start))
	}
	return []edit{{open.start, close.end, text}}, nil
}

func indentItems(items []string, indent string) string {
	var b strings.Builder
	for _, s := range items {
		b.WriteString(indent + quote(s) + "\n")
	}
	return b.String()
}

// appendTerm adds "++ lib.optionals (COND) [ ... ]" at the end of the
// outputs expression: on a line of its own when the expression spans
// lines (as nixfmt puts each "++" operand), else on its line.
func (fx *fixer) appendTerm(sp split) edit {
	s := fx.src
	first, last := s.toks[fx.outputs.first], s.toks[fx.outputs.semicolon-1]
	indent := s.indentOf(first.start)
	list := nixInline(sp.outputs)
	if len(sp.outputs) >= 2 {
		list = nixExpanded(sp.outputs, indent)
	}
	text := " ++ lib.optionals " + sp.cond + " " + list
	if strings.Contains(s.text[first.start:last.end], "\n") {
		text = "\n" + indent + strings.TrimPrefix(text, " ")
	}
	return edit{last.end, last.end, text}
}

// addFormal adds an argument to the file's argument set, before the
// first one that sorts after it (or last), in the set's layout: a line
// of its own when the set has one argument a line.
func (fx *fixer) addFormal(name string) (edit, error) {
	s := fx.src
	open, close := s.toks[s.formalsOpen], s.toks[s.formalsClose]
	multi := strings.Contains(s.text[open.start:close.end], "\n")
	for i, f := range s.formals {
		if f > name {
			at := s.toks[s.formalStarts[i]].start
			if multi {
				return edit{s.lineStart(at), s.lineStart(at), s.indentOf(at) + name + ",\n"}, nil
			}
			return edit{at, at, name + ", "}, nil
		}
	}
	if len(s.formals) == 0 {
		return edit{open.end, open.end, " " + name + " "}, nil
	}
	lastEnd := s.formalEnds[len(s.formalEnds)-1]
	if !s.is(lastEnd+1, ",") {
		if multi {
			return edit{s.toks[lastEnd].end, s.toks[lastEnd].end, ",\n" + s.indentOf(s.toks[lastEnd].start) + name}, nil
		}
		return edit{s.toks[lastEnd].end, s.toks[lastEnd].end, ", " + name}, nil
	}
	comma := s.toks[lastEnd+1]
	if multi {
		return edit{comma.end, comma.end, "\n" + s.indentOf(s.toks[lastEnd].start) + name + ","}, nil
	}
	return edit{comma.end, comma.end, " " + name + ","}, nil
}

// dropTerm removes a conditional term and the "++" before it (after it,
// for the first term), with the whitespace between.
func (fx *fixer) dropTerm(t term) edit {
	s := fx.src
	if t.first > fx.outputs.value && s.is(t.first-1, "++") {
		prev := s.toks[t.first-2]
		return edit{prev.end, s.toks[t.last].end, ""}
	}
	next := s.toks[t.last+2] // the term after "++"
	return edit{s.toks[t.first].start, next.start, ""}
}

// createOutputs adds an outputs binding after pname (or redistName).
func (fx *fixer) createOutputs(list []string) (edit, error) {
	for _, name := range []string{"pname", "redistName"} {
		if b, ok := fx.src.binding(name); ok {
			indent := fx.src.indentOf(fx.src.toks[b.first].start)
			value := nixInline(list)
			if len(list) >= 2 && fx.src.ownLine(fx.src.toks[b.first].start) {
				value = nixExpanded(list, indent)
			}
			return fx.insertAfter(b, "outputs = "+value+";"), nil
		}
	}
	return edit{}, fmt.Errorf("the file has no outputs, pname or redistName binding to put outputs next to")
}

// insertAfter inserts a binding after b, in b's layout: on a line of
// its own (after a blank line when b is followed by one) when b has its
// own line, else after b on the same line.
func (fx *fixer) insertAfter(b binding, text string) edit {
	s := fx.src
	first, semi := s.toks[b.first], s.toks[b.semicolon]
	rest := strings.TrimSpace(s.text[semi.end:s.lineEnd(semi.end)])
	if !s.ownLine(first.start) || (rest != "" && !strings.HasPrefix(rest, "#")) {
		return edit{semi.end, semi.end, " " + text}
	}
	eol := s.lineEnd(semi.end)
	sep := "\n"
	if s.blankAround(s.lineStart(first.start), eol) {
		sep = "\n\n"
	}
	return edit{eol, eol, sep + s.indentOf(first.start) + text}
}

// blankAround: the line before start or the line after end (the
// newline at end) is blank, so the file separates its bindings by
// blank lines.
func (s *source) blankAround(start, end int) bool {
	if start > 0 && strings.TrimSpace(s.text[s.lineStart(start-1):start]) == "" {
		return true
	}
	return end < len(s.text) && strings.TrimSpace(s.text[end+1:s.lineEnd(end+1)]) == ""
}

// flagEdits writes allowFHSReferences and includeRemoveStubsFromRunpathHook.
func (fx *fixer) flagEdits(p *plan) ([]edit, error) {
	var edits []edit
	anchor, ok := fx.anchor()
	if !ok {
		return nil, fmt.Errorf("buildRedist's set is empty")
	}
	if p.fhs {
		edits = append(edits, fx.setBool("allowFHSReferences", true, anchor))
	}
	switch {
	case p.hook.set:
		edits = append(edits, fx.setBool("includeRemoveStubsFromRunpathHook", p.hook.value, anchor))
	case p.hook.remove:
		b, _ := fx.src.binding("includeRemoveStubsFromRunpathHook")
		edits = append(edits, fx.removeBinding(b))
	}
	return edits, nil
}

// anchor is the binding new flags go after: outputs, else pname, else
// the last binding; none in an empty set.
func (fx *fixer) anchor() (binding, bool) {
	for _, name := range []string{"outputs", "pname"} {
		if b, ok := fx.src.binding(name); ok {
			return b, true
		}
	}
	if n := len(fx.src.bindings); n > 0 {
		return fx.src.bindings[n-1], true
	}
	return binding{}, false
}

// setBool sets a flag: the literal replaced when there is a binding,
// else a new binding after anchor.
func (fx *fixer) setBool(name string, v bool, anchor binding) edit {
	value := strconv.FormatBool(v)
	if b, ok := fx.src.binding(name); ok {
		t := fx.src.toks[b.value]
		return edit{t.start, t.end, value}
	}
	return fx.insertAfter(anchor, name+" = "+value+";")
}

// removeBinding removes a binding: its lines when it has lines of its
// own (and one of the blank lines around it), else its text.
func (fx *fixer) removeBinding(b binding) edit {
	s := fx.src
	first, semi := s.toks[b.first], s.toks[b.semicolon]
	eol := s.lineEnd(semi.end)
	if !s.ownLine(first.start) || strings.TrimSpace(s.text[semi.end:eol]) != "" {
		end := semi.end
		for end < len(s.text) && s.text[end] == ' ' {
			end++
		}
		return edit{first.start, end, ""}
	}
	start, end := s.lineStart(first.start), min(eol+1, len(s.text))
	before := start > 0 && strings.TrimSpace(s.text[s.lineStart(start-1):start]) == ""
	after := end < len(s.text) && strings.TrimSpace(s.text[end:s.lineEnd(end)]) == ""
	if before && after {
		end = min(s.lineEnd(end)+1, len(s.text))
	}
	return edit{start, end, ""}
}
