package nixfix

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/declcheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Archive is one archive a package file is checked against.
type Archive struct {
	Name string // for messages: "linux-sbsa None 1.0.0"
	Tree features.Tree
}

// Case is one evaluation of a package file (a platform and CUDA
// version) with what it declared there, and the archives of its pname
// that evaluation serves (none when the manifest has no archive there:
// such a case constrains nothing).
type Case struct {
	Name string
	// Platform is the hostRedistSystem and CudaVersion the cudaVersion
	// (major.minor) the file was evaluated for.
	Platform, CudaVersion string
	Options               buildredist.Options
	Outputs               []string
	Hook                  *bool // includeRemoveStubsFromRunpathHook, nil when unset
	FHS                   bool  // allowFHSReferences
	Archives              []Archive
	// Probe is what the file made by Probe declares in this case (nil
	// when it was not evaluated): it tells exactly which parts of the
	// outputs expression apply, where matching Outputs against them
	// could not (two branches with the same list).
	Probe []string
}

// Refusal is why a file that needs a fix is left alone.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "not fixed (the file is left alone): " + r.Reason }

func refuse(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

// errorsOf is what would fail the build of the case's archives with a
// declaration: buildRedist's checks, and its assertion that lib comes
// before static.
func errorsOf(c Case, outputs []string, hook *bool, fhs bool) []declcheck.Finding {
	var out []declcheck.Finding
	if l, s := slices.Index(outputs, "lib"), slices.Index(outputs, "static"); l >= 0 && s >= 0 && s < l {
		out = append(out, declcheck.Finding{Error: true, Kind: "libAfterStatic", Message: "lib must come before static"})
	}
	for _, a := range c.Archives {
		for _, f := range declcheck.Check(a.Tree, declcheck.Declaration{Outputs: outputs, IncludeRemoveStubsFromRunpathHook: hook, AllowFHSReferences: fhs}, c.Options) {
			if f.Error {
				f.Message = a.Name + ": " + f.Message
				out = append(out, f)
			}
		}
	}
	return out
}

// Fix returns the file's text with the smallest edits that make every
// case's build pass, the text itself when nothing fails, or a Refusal
// saying why it cannot be fixed safely.
func Fix(text string, cases []Case) (string, error) {
	broken := false
	for _, c := range cases {
		broken = broken || len(errorsOf(c, c.Outputs, c.Hook, c.FHS)) > 0
	}
	if !broken {
		return text, nil
	}
	src, err := locate(text)
	if err != nil {
		return text, refuse("cannot read it: %v", err)
	}
	fx := newFixer(src, cases)
	var firstErr error
	var best *plan
	for _, addStubs := range []bool{false, true} {
		p, err := fx.plan(addStubs)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if best == nil || p.cost < best.cost {
			best = p
		}
	}
	if best == nil {
		return text, firstErr
	}
	out, err := fx.apply(best)
	if err != nil {
		return text, refuse("%v", err)
	}
	if _, err := locate(out); err != nil {
		return text, refuse("the edited file would not read back (%v)", err)
	}
	return out, nil
}

// tri is whether a conditional term applies in a case.
type tri int

const (
	unknown tri = iota
	yes
	no
)

// fixer holds a located file and its cases.
type fixer struct {
	src     *source
	cases   []Case
	outputs binding
	hasOut  bool
	terms   []term
	// act[c][t]: does term t apply in case c (from matching the
	// evaluated outputs against the terms).
	act [][]tri
}

func newFixer(src *source, cases []Case) *fixer {
	fx := &fixer{src: src, cases: cases}
	fx.outputs, fx.hasOut = src.binding("outputs")
	switch {
	case fx.hasOut:
		fx.terms = src.terms(fx.outputs)
	case slices.Contains(src.inherited, "outputs"):
		// inherit outputs; (from a let): nothing the fixer can edit.
		fx.hasOut = true
		fx.terms = []term{{opaque: true, first: 0, last: -1}}
	}
	for _, c := range cases {
		if c.Probe != nil {
			fx.act = append(fx.act, probed(fx.terms, c.Probe))
		} else {
			fx.act = append(fx.act, activity(fx.terms, c.Outputs))
		}
	}
	return fx
}

// probePrefix marks each list of a probe file's outputs expression.
const probePrefix = "nixfix-probe-"

// Probe returns the file with a marker string first in every list of
// its outputs expression ("nixfix-probe-0", ...), so that evaluating it
// says which lists apply in a case; ok is false when the file has no
// outputs expression the fixer reads.
func Probe(text string) (probe string, ok bool) {
	src, err := locate(text)
	if err != nil {
		return "", false
	}
	b, has := src.binding("outputs")
	if !has {
		return "", false
	}
	var edits []edit
	for i, t := range src.terms(b) {
		if !t.opaque {
			at := src.toks[t.open].end
			edits = append(edits, edit{at, at, " " + quote(fmt.Sprint(probePrefix, i))})
		}
	}
	out, err := applyEdits(text, edits)
	return out, err == nil && len(edits) > 0
}

// probed reads which terms apply from a probe's evaluated outputs.
func probed(terms []term, outputs []string) []tri {
	act := make([]tri, len(terms))
	for i, t := range terms {
		if t.opaque {
			continue
		}
		act[i] = no
		if slices.Contains(outputs, fmt.Sprint(probePrefix, i)) {
			act[i] = yes
		}
	}
	return act
}

// activity works out which conditional terms apply, given the list the
// evaluation declared: the terms' lists, those that apply, concatenated,
// must give it. A term is unknown when no split or several splits that
// disagree about it give the list.
func activity(terms []term, declared []string) []tri {
	if slices.ContainsFunc(terms, func(t term) bool { return t.opaque }) {
		return make([]tri, len(terms))
	}
	s := &splitSearch{
		terms: terms, declared: declared,
		seenYes: make([]bool, len(terms)), seenNo: make([]bool, len(terms)), on: make([]bool, len(terms)),
		budget: 4096, // splits tried: bounds the work on a pathological file
	}
	s.walk(0, 0)
	if s.budget < 0 {
		return make([]tri, len(terms))
	}
	return s.verdicts()
}

// splitSearch tries every split of the declared list into the terms'
// lists, noting for each term whether a split that gives the list has it
// on or off.
type splitSearch struct {
	terms           []term
	declared        []string
	seenYes, seenNo []bool
	on              []bool // the split being tried
	budget          int
}

// walk tries the splits of declared[pos:] into terms[ti:].
func (s *splitSearch) walk(ti, pos int) {
	if s.budget--; s.budget < 0 {
		return
	}
	if ti == len(s.terms) {
		if pos == len(s.declared) {
			s.record()
		}
		return
	}
	t := s.terms[ti]
	if t.cond != "" {
		s.on[ti] = false
		s.walk(ti+1, pos)
	}
	if s.listAt(t, pos) {
		s.on[ti] = true
		s.walk(ti+1, pos+len(t.elems))
	}
}

// listAt says whether t's list is what declared holds at pos.
func (s *splitSearch) listAt(t term, pos int) bool {
	if pos+len(t.elems) > len(s.declared) {
		return false
	}
	for i, e := range t.elems {
		if s.declared[pos+i] != e.value {
			return false
		}
	}
	return true
}

// record notes the split being tried, which gives the declared list.
func (s *splitSearch) record() {
	for i := range s.terms {
		s.seenYes[i] = s.seenYes[i] || s.on[i]
		s.seenNo[i] = s.seenNo[i] || !s.on[i]
	}
}

// verdicts is each term yes or no when every split agrees about it.
func (s *splitSearch) verdicts() []tri {
	act := make([]tri, len(s.terms))
	for i := range s.terms {
		switch {
		case s.seenYes[i] && !s.seenNo[i]:
			act[i] = yes
		case s.seenNo[i] && !s.seenYes[i]:
			act[i] = no
		}
	}
	return act
}

// plan is the edits a fix makes.
type plan struct {
	lists map[int][]string // term index: its new list
	// splits are new "++ lib.optionals COND [ ... ]" terms, for outputs
	// of the unconditional list that only some platforms or CUDA
	// versions fill; formals are the arguments they need.
	splits  []split
	formals []string
	// create: the outputs binding to add (the file has none).
	create []string
	hook   hookEdit
	fhs    bool // set allowFHSReferences = true
	cost   int
}

// split is a new term of outputs: its condition (with parentheses),
// the arguments that needs, and the cases it applies in.
type split struct {
	cond    string
	formals []string
	applies func(Case) bool
	outputs []string
}

// hookEdit is what happens to includeRemoveStubsFromRunpathHook.
type hookEdit struct {
	set    bool // write value
	value  bool
	remove bool
}

// want is what case c should declare: its list without the outputs
// that end up empty, plus "stubs" when addStubs and that takes a stubs
// directory somewhere else into its own output.
func want(c Case, addStubs bool) []string {
	outs := slices.Clone(c.Outputs)
	for {
		var empty []string
		for _, f := range errorsOf(c, outs, nil, true) {
			if f.Kind == "emptyOutput" {
				empty = append(empty, f.Output)
			}
		}
		if len(empty) == 0 {
			break
		}
		outs = slices.DeleteFunc(outs, func(o string) bool { return slices.Contains(empty, o) })
	}
	if !addStubs || slices.Contains(outs, "stubs") {
		return outs
	}
	with := insertCanonical(outs, "stubs")
	for _, f := range errorsOf(c, with, nil, true) {
		if f.Kind == "emptyOutput" {
			return outs
		}
	}
	return with
}

// rank is an output's place in buildRedist's expected order; unknown
// names rank -1.
func rank(o string) int { return slices.Index(features.BuildRedistOutputs, o) }

// insertCanonical inserts o before the first known output ranked after
// it.
func insertCanonical(list []string, o string) []string {
	for i, x := range list {
		if rank(x) > rank(o) {
			return slices.Insert(slices.Clone(list), i, o)
		}
	}
	return append(slices.Clone(list), o)
}

// plan works out the edits for one choice of adding a stubs output.
func (fx *fixer) plan(addStubs bool) (*plan, error) {
	wants := make([][]string, len(fx.cases))
	for i, c := range fx.cases {
		wants[i] = c.Outputs
		if len(c.Archives) > 0 {
			wants[i] = want(c, addStubs)
		}
	}
	p := &plan{lists: map[int][]string{}}
	if err := fx.planOutputs(p, wants); err != nil {
		return nil, err
	}
	decls, err := fx.declared(p)
	if err != nil {
		return nil, err
	}
	if err := fx.planFlags(p, decls); err != nil {
		return nil, err
	}
	for i, c := range fx.cases {
		if errs := errorsOf(c, decls[i], fx.hookIn(p, i), fx.fhsIn(p, i)); len(errs) > 0 {
			return nil, refuse("%s: %s", c.Name, errs[0].Message)
		}
	}
	return p, nil
}

// planOutputs maps what each case wants onto the terms of the outputs
// expression: an output is removed from a term only if every case the
// term applies in wants it gone, and added to the term that applies in
// just the cases that want it (or the fewest others).
func (fx *fixer) planOutputs(p *plan, wants [][]string) error {
	changed := false
	for i, c := range fx.cases {
		changed = changed || (len(c.Archives) > 0 && !slices.Equal(wants[i], c.Outputs))
	}
	if !changed {
		return nil
	}
	if !fx.hasOut {
		return fx.planCreate(p, wants)
	}
	for i, c := range fx.cases {
		if len(c.Archives) == 0 || slices.Equal(wants[i], c.Outputs) {
			continue
		}
		for ti, t := range fx.terms {
			if t.opaque {
				return refuse("outputs is computed in a way the fixer does not follow (%s)", cmp.Or(fx.src.span(t.first, t.last), "inherit"))
			}
			if fx.act[i][ti] == unknown {
				return refuse("cannot tell whether %s applies for %s", describe(t), c.Name)
			}
		}
	}
	for ti, t := range fx.terms {
		list, err := fx.removals(p, ti, t, wants)
		if err != nil {
			return err
		}
		if !slices.Equal(list, values(t)) {
			p.lists[ti] = list
			p.cost += len(t.elems) - len(list)
		}
	}
	return fx.additions(p, wants)
}

func values(t term) []string {
	var out []string
	for _, e := range t.elems {
		out = append(out, e.value)
	}
	return out
}

func describe(t term) string {
	if t.cond == "" {
		return "the list " + nixInline(values(t))
	}
	return "the branch optionals " + t.cond
}

// removals is term t's list without the outputs every case it applies
// in wants gone. An output of the unconditional list that some
// platforms fill and others do not moves to a new platform branch.
func (fx *fixer) removals(p *plan, ti int, t term, wants [][]string) ([]string, error) {
	var list []string
	for _, e := range t.elems {
		var gone, kept []int
		for i, c := range fx.cases {
			if len(c.Archives) == 0 || fx.act[i][ti] != yes {
				continue
			}
			if slices.Contains(wants[i], e.value) {
				kept = append(kept, i)
			} else {
				gone = append(gone, i)
			}
		}
		switch {
		case len(gone) > 0 && len(kept) > 0:
			if err := fx.split(p, t, e.value, gone, kept); err != nil {
				return nil, err
			}
		case len(gone) == 0:
			list = append(list, e.value)
		}
	}
	return list, nil
}

// split moves output o of the unconditional list t to a new branch
// that applies in the cases that keep it: on their platforms, when no
// case of those platforms wants it gone, else on the CUDA version, when
// every case that keeps it has an older (or every one a newer) CUDA
// than every case that does not.
func (fx *fixer) split(p *plan, t term, o string, gone, kept []int) error {
	names := func(is []int) string {
		var n []string
		for _, i := range is {
			n = append(n, fx.cases[i].Name)
		}
		return strings.Join(n, "; ")
	}
	why := fmt.Sprintf("output %s ends up empty for %s but not for %s, and both take it from %s", o, names(gone), names(kept), describe(t))
	if t.cond != "" {
		return refuse("%s: it needs a condition of its own", why)
	}
	sp, ok := fx.platformSplit(gone, kept)
	if !ok {
		sp, ok = fx.versionSplit(gone, kept)
	}
	if !ok {
		return refuse("%s, and neither the platform nor the CUDA version tells them apart: write its condition by hand", why)
	}
	if fx.src.formalsOpen < 0 {
		return refuse("%s: it needs a condition, and the file takes no argument set to add %s to", why, strings.Join(sp.formals, " and "))
	}
	for j := range p.splits {
		if p.splits[j].cond == sp.cond {
			p.splits[j].outputs = append(p.splits[j].outputs, o)
			return nil
		}
	}
	sp.outputs = []string{o}
	p.splits = append(p.splits, sp)
	for _, f := range sp.formals {
		if !slices.Contains(fx.src.formals, f) && !slices.Contains(p.formals, f) {
			p.formals = append(p.formals, f)
		}
	}
	p.cost += 2
	return nil
}

// platformSplit is a branch on the platforms of the kept cases, if no
// gone case shares one.
func (fx *fixer) platformSplit(gone, kept []int) (split, bool) {
	var platforms []string
	for _, i := range kept {
		if pl := fx.cases[i].Platform; !slices.Contains(platforms, pl) {
			platforms = append(platforms, pl)
		}
	}
	for _, i := range gone {
		if pl := fx.cases[i].Platform; pl == "" || slices.Contains(platforms, pl) {
			return split{}, false
		}
	}
	slices.Sort(platforms)
	cond := "backendStdenv.hostRedistSystem == " + quote(platforms[0])
	if len(platforms) > 1 {
		cond = "lib.elem backendStdenv.hostRedistSystem " + nixInline(platforms)
	}
	return split{cond: "(" + cond + ")", formals: []string{"backendStdenv", "lib"},
		applies: func(c Case) bool { return slices.Contains(platforms, c.Platform) }}, true
}

// versionSplit is a branch on cudaOlder or cudaAtLeast, if the kept
// cases' CUDA versions all lie below (or all at or above) the gone ones'.
func (fx *fixer) versionSplit(gone, kept []int) (split, bool) {
	lowest := func(is []int) (int, bool) {
		best := -1
		for _, i := range is {
			if _, ok := cudaVersion(fx.cases[i]); !ok {
				return 0, false
			}
			if best < 0 || compareVersions(fx.cases[i].CudaVersion, fx.cases[best].CudaVersion) < 0 {
				best = i
			}
		}
		return best, true
	}
	highest := func(is []int) int {
		best := is[0]
		for _, i := range is {
			if compareVersions(fx.cases[i].CudaVersion, fx.cases[best].CudaVersion) > 0 {
				best = i
			}
		}
		return best
	}
	lowGone, ok1 := lowest(gone)
	lowKept, ok2 := lowest(kept)
	if !ok1 || !ok2 {
		return split{}, false
	}
	if v := fx.cases[lowGone].CudaVersion; compareVersions(fx.cases[highest(kept)].CudaVersion, v) < 0 {
		return split{cond: "(cudaOlder " + quote(v) + ")", formals: []string{"cudaOlder", "lib"},
			applies: func(c Case) bool { return compareVersions(c.CudaVersion, v) < 0 }}, true
	}
	if v := fx.cases[lowKept].CudaVersion; compareVersions(fx.cases[highest(gone)].CudaVersion, v) < 0 {
		return split{cond: "(cudaAtLeast " + quote(v) + ")", formals: []string{"cudaAtLeast", "lib"},
			applies: func(c Case) bool { return compareVersions(c.CudaVersion, v) >= 0 }}, true
	}
	return split{}, false
}

// cudaVersion parses a case's major.minor CUDA version.
func cudaVersion(c Case) ([2]int, bool) {
	major, minor, ok := strings.Cut(c.CudaVersion, ".")
	if !ok {
		return [2]int{}, false
	}
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	return [2]int{a, b}, err1 == nil && err2 == nil
}

// compareVersions orders major.minor versions numerically.
func compareVersions(a, b string) int {
	va, _ := cudaVersion(Case{CudaVersion: a})
	vb, _ := cudaVersion(Case{CudaVersion: b})
	if va[0] != vb[0] {
		return cmp.Compare(va[0], vb[0])
	}
	return cmp.Compare(va[1], vb[1])
}

// additions adds each output some cases want and do not declare to the
// term that applies in all of them and the fewest others.
func (fx *fixer) additions(p *plan, wants [][]string) error {
	for _, o := range features.BuildRedistOutputs {
		var need []int
		for i, c := range fx.cases {
			if len(c.Archives) > 0 && slices.Contains(wants[i], o) && !slices.Contains(c.Outputs, o) {
				need = append(need, i)
			}
		}
		if len(need) == 0 {
			continue
		}
		best, bestExtra := -1, 0
		for ti := range fx.terms {
			extra, fits := fx.extraCases(ti, need)
			if fits && (best < 0 || extra < bestExtra) {
				best, bestExtra = ti, extra
			}
		}
		if best < 0 {
			return refuse("output %s is needed for %s, and no part of outputs applies in exactly those cases", o, fx.cases[need[0]].Name)
		}
		list, ok := p.lists[best]
		if !ok {
			list = values(fx.terms[best])
		}
		p.lists[best] = insertCanonical(list, o)
		p.cost++
	}
	return nil
}

// extraCases: does term ti apply in every case of need, and in how many
// other cases with archives.
func (fx *fixer) extraCases(ti int, need []int) (int, bool) {
	extra := 0
	for i, c := range fx.cases {
		if len(c.Archives) == 0 {
			continue
		}
		switch {
		case slices.Contains(need, i) && fx.act[i][ti] != yes:
			return 0, false
		case !slices.Contains(need, i) && fx.act[i][ti] != no:
			extra++
		}
	}
	return extra, true
}

// planCreate: a file without outputs declares ["out"]; it gets an
// outputs binding when every case wants the same list.
func (fx *fixer) planCreate(p *plan, wants [][]string) error {
	var list []string
	for i, c := range fx.cases {
		if len(c.Archives) == 0 {
			continue
		}
		if list != nil && !slices.Equal(list, wants[i]) {
			return refuse("the file has no outputs, and the cases need different ones (%s, %s)", nixInline(list), nixInline(wants[i]))
		}
		list = wants[i]
	}
	p.create = list
	p.cost += len(list)
	return nil
}

// declared is what each case declares after the plan's outputs edits.
func (fx *fixer) declared(p *plan) ([][]string, error) {
	out := make([][]string, len(fx.cases))
	for i, c := range fx.cases {
		switch {
		case p.create != nil:
			out[i] = p.create
			continue
		case len(p.lists) == 0 && len(p.splits) == 0 || len(c.Archives) == 0:
			out[i] = c.Outputs
			continue
		}
		var decl []string
		for ti, t := range fx.terms {
			switch fx.act[i][ti] {
			case no:
				continue
			case unknown:
				return nil, refuse("cannot tell whether %s applies for %s", describe(t), c.Name)
			}
			list, ok := p.lists[ti]
			if !ok {
				list = values(t)
			}
			decl = append(decl, list...)
		}
		for _, sp := range p.splits {
			if sp.applies(c) {
				decl = append(decl, sp.outputs...)
			}
		}
		out[i] = decl
	}
	return out, nil
}

// hookIn and fhsIn are the flags case i builds with under the plan.
func (fx *fixer) hookIn(p *plan, i int) *bool {
	switch {
	case p.hook.remove:
		return nil
	case p.hook.set:
		v := p.hook.value
		return &v
	}
	return fx.cases[i].Hook
}

func (fx *fixer) fhsIn(p *plan, i int) bool { return p.fhs || fx.cases[i].FHS }

// planFlags decides the edits of allowFHSReferences (set when a case
// has /usr/) and includeRemoveStubsFromRunpathHook (the literal every
// case accepts, or no binding when each case's default is right).
func (fx *fixer) planFlags(p *plan, decls [][]string) error {
	for i, c := range fx.cases {
		for _, f := range errorsOf(c, decls[i], c.Hook, c.FHS) {
			if f.Kind == "fhsReference" {
				p.fhs = true
			}
		}
	}
	if p.fhs {
		p.cost++
		if slices.Contains(fx.src.inherited, "allowFHSReferences") {
			return refuse("allowFHSReferences must be true, and it is inherited")
		}
		if b, ok := fx.src.binding("allowFHSReferences"); ok {
			if _, lit := fx.src.literalBool(b); !lit {
				return refuse("allowFHSReferences must be true, and it is computed (%s)", fx.src.valueText(b))
			}
		}
	}
	return fx.planHook(p, decls)
}

func (fx *fixer) planHook(p *plan, decls [][]string) error {
	accepts := func(i int, h *bool) bool {
		for _, f := range errorsOf(fx.cases[i], decls[i], h, true) {
			if f.Kind == "stubsHook" {
				return false
			}
		}
		return true
	}
	all := func(h func(i int) *bool) bool {
		for i := range fx.cases {
			if !accepts(i, h(i)) {
				return false
			}
		}
		return true
	}
	current := func(i int) *bool { return fx.cases[i].Hook }
	if all(current) {
		return nil
	}
	if slices.Contains(fx.src.inherited, "includeRemoveStubsFromRunpathHook") {
		return refuse("includeRemoveStubsFromRunpathHook is inherited and gives the wrong answer")
	}
	b, has := fx.src.binding("includeRemoveStubsFromRunpathHook")
	if has {
		if _, lit := fx.src.literalBool(b); !lit {
			return refuse("includeRemoveStubsFromRunpathHook is computed (%s) and gives the wrong answer", fx.src.valueText(b))
		}
	}
	for _, v := range []bool{true, false} {
		if all(func(int) *bool { return &v }) {
			p.hook, p.cost = hookEdit{set: true, value: v}, p.cost+1
			return nil
		}
	}
	if has && all(func(int) *bool { return nil }) {
		p.hook, p.cost = hookEdit{remove: true}, p.cost+1
		return nil
	}
	return refuse("no single value of includeRemoveStubsFromRunpathHook suits every platform and CUDA version")
}
