package nixfix

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Runpath is a directory a package file should put on its libraries'
// RUNPATH: the lib/ of Provider (a package, or a Nixpkgs attribute of a
// free library), for the sonames its libraries load at run time, from
// package version Since on and before Until ("" for no bound).
type Runpath struct {
	Provider     string
	Sonames      []string
	Since, Until string
}

// nixIdent is an argument name ProposeRunpaths can add: no dotted path
// (xorg.libX11 would need its set as the argument).
var nixIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_'-]*$`)

// ProposeRunpaths returns the file's text with an appendRunpaths binding
// that makes the run-time loads of check-nixpkgs' unreachableRuntimeLoad
// hints reachable (appended to the file's own, when it has one), as
// Nixpkgs' package files write it: each provider's
// "${lib.getLib provider}/lib" under a comment naming the sonames, those
// in every release in one list, the others each in a lib.optionals on the
// package's version (finalAttrs.version), and the providers and lib added
// to the file's arguments. It refuses an appendRunpaths that is no list
// (the entries belong in it, by hand), a file without an argument set, a
// condition without finalAttrs, and a provider that is no plain name.
func ProposeRunpaths(text string, adds []Runpath) (string, error) {
	if len(adds) == 0 {
		return text, nil
	}
	adds = slices.Clone(adds)
	sort.SliceStable(adds, func(i, j int) bool { return adds[i].Provider < adds[j].Provider })
	src, err := runpathSource(text, adds)
	if err != nil {
		return text, err
	}
	fx := &fixer{src: src}
	at, err := fx.runpathsEdit(adds)
	if err != nil {
		return text, err
	}
	edits, err := fx.addFormals(runpathFormals(adds))
	if err != nil {
		return text, refuse("%v", err)
	}
	out, err := applyEdits(text, append(edits, at))
	if err != nil {
		return text, refuse("%v", err)
	}
	if _, err := locate(out); err != nil {
		return text, refuse("the edited file would not read back (%v)", err)
	}
	return out, nil
}

// runpathSource locates the file, refusing what ProposeRunpaths cannot
// edit safely: a provider that is no argument name, a file without an
// argument set.
func runpathSource(text string, adds []Runpath) (*source, error) {
	for _, a := range adds {
		if !nixIdent.MatchString(a.Provider) {
			return nil, refuse("run-time loads of %s: the provider %q is no argument name to add", strings.Join(a.Sonames, ", "), a.Provider)
		}
	}
	src, err := locate(text)
	if err != nil {
		return nil, refuse("cannot read it: %v", err)
	}
	if src.formalsOpen < 0 {
		return nil, refuse("it takes no argument set to add %s to", describeRunpaths(adds))
	}
	return src, nil
}

// runpathsEdit is the edit that adds the directories: appended to the
// file's appendRunpaths (` ++ ` and the new lists) when that is a list or
// a ++ chain of lists and lib.optionals, a new appendRunpaths after the
// outputs otherwise. Any other value (a variable, an if) is refused:
// appended to it, the lists could land in one branch only.
func (fx *fixer) runpathsEdit(adds []Runpath) (edit, error) {
	src := fx.src
	if b, ok := src.binding("appendRunpaths"); ok {
		for _, t := range src.terms(b) {
			if t.open < 0 {
				return edit{}, refuse("its appendRunpaths is no list or ++ chain of lists: add %s to it by hand", describeRunpaths(adds))
			}
		}
		value, err := runpathsValue(finalAttrsName(src), adds, src.indentOf(src.toks[b.first].start))
		semi := src.toks[b.semicolon]
		return edit{semi.start, semi.start, " ++ " + value}, err
	}
	anchor, ok := fx.anchor()
	if !ok {
		return edit{}, refuse("buildRedist's set is empty")
	}
	value, err := runpathsValue(finalAttrsName(src), adds, src.indentOf(src.toks[anchor.first].start))
	return fx.insertAfter(anchor, "appendRunpaths = "+value+";"), err
}

// runpathsValue is appendRunpaths' value: the directories of every
// release in one list, then one lib.optionals per conditional one, on
// the package's version (self: the name buildRedist binds its final
// attributes to, "" for none).
func runpathsValue(self string, adds []Runpath, indent string) (string, error) {
	var always []Runpath
	var terms []string
	for _, a := range adds {
		if a.Since == "" && a.Until == "" {
			always = append(always, a)
			continue
		}
		if self == "" {
			return "", refuse("%s is not in every release, and the file's buildRedist takes no finalAttrs for the version condition", describeRunpaths([]Runpath{a}))
		}
		terms = append(terms, "lib.optionals "+versionCondition(self, a)+" "+runpathList([]Runpath{a}, indent))
	}
	if len(always) > 0 {
		terms = append([]string{runpathList(always, indent)}, terms...)
	}
	return strings.Join(terms, " ++ "), nil
}

// runpathFormals are the arguments the additions need: lib and each
// provider, sorted, once.
func runpathFormals(adds []Runpath) []string {
	formals := []string{"lib"}
	for _, a := range adds {
		formals = append(formals, a.Provider)
	}
	sort.Strings(formals)
	return slices.Compact(formals)
}

// addFormals adds the arguments the file does not take yet.
func (fx *fixer) addFormals(names []string) ([]edit, error) {
	var edits []edit
	for _, f := range names {
		if slices.Contains(fx.src.formals, f) {
			continue
		}
		e, err := fx.addFormal(f)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// runpathList is a list of the providers' lib/ directories, one a line,
// each under a comment naming what is loaded from it.
func runpathList(adds []Runpath, indent string) string {
	var b strings.Builder
	b.WriteString("[\n")
	for _, a := range adds {
		b.WriteString(indent + "  # " + strings.Join(a.Sonames, ", ") + ": loaded at run time (dlopen), no DT_NEEDED\n")
		b.WriteString(indent + "  \"${lib.getLib " + a.Provider + "}/lib\"\n")
	}
	b.WriteString(indent + "]")
	return b.String()
}

// versionCondition is the condition on the package's version the
// appearance gives.
func versionCondition(self string, a Runpath) string {
	var parts []string
	if a.Since != "" {
		parts = append(parts, "lib.versionAtLeast "+self+".version "+quote(a.Since))
	}
	if a.Until != "" {
		parts = append(parts, "lib.versionOlder "+self+".version "+quote(a.Until))
	}
	return "(" + strings.Join(parts, " && ") + ")"
}

func describeRunpaths(adds []Runpath) string {
	var parts []string
	for _, a := range adds {
		s := `"${lib.getLib ` + a.Provider + `}/lib" (for ` + strings.Join(a.Sonames, ", ")
		if a.Since != "" {
			s += ", from " + a.Since + " on"
		}
		if a.Until != "" {
			s += ", before " + a.Until
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, " and ")
}

// finalAttrsName is the name buildRedist's function binds its final
// attributes to (`buildRedist (finalAttrs: {`), "" when it takes a set.
func finalAttrsName(s *source) string {
	for i := s.formalsClose + 1; i+3 < len(s.toks); i++ {
		if s.toks[i].kind == kIdent && s.toks[i].text == "buildRedist" && s.is(i+1, "(") && s.toks[i+2].kind == kIdent && s.is(i+3, ":") {
			return s.toks[i+2].text
		}
	}
	return ""
}
