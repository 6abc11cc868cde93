package nixpkgscheck

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest/licence"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
)

// Kinds of the lineage and licence hints.
const (
	KindRenamed = "renamed"
	KindDropped = "dropped"
	KindSplit   = "split"
	KindLicence = "licence"
)

// maxFilesNamed bounds the moved files a split hint names.
const maxFilesNamed = 5

// step is the lineage of one redist from a release to the next.
type step struct {
	redist string
	*lineage.Lineage
	// later are the packages of the releases given after New.
	later map[string]bool
}

// lineages follows each redist given with two manifests or more from
// each release to the next (lib/report/lineage), with the trees of the
// archives detected.
func (p *Plan) lineages() []step {
	byRedist := map[string][]Manifest{}
	for _, m := range p.in.Manifests {
		if m.Parsed != nil {
			byRedist[m.Redist] = append(byRedist[m.Redist], m)
		}
	}
	var out []step
	for _, redist := range sortedKeys(byRedist) {
		ms := byRedist[redist]
		slices.SortStableFunc(ms, func(a, b Manifest) int { return manifest.CompareVersions(a.Version, b.Version) })
		rels := make([]*lineage.Release, len(ms))
		for i, m := range ms {
			rels[i] = lineage.FromManifest(redist, m.Version, m.Parsed)
		}
		for _, a := range p.in.Archives {
			for i, m := range ms {
				if a.Redist == redist && a.Manifest == m.Version && a.Features != nil && rels[i].Packages[a.Package] != nil {
					rels[i].Packages[a.Package].AddFeatures(a.Features)
				}
			}
		}
		for i := 1; i < len(rels); i++ {
			later := map[string]bool{}
			for _, r := range rels[i+1:] {
				for k := range r.Packages {
					later[k] = true
				}
			}
			out = append(out, step{redist, lineage.Compare(rels[i-1], rels[i], nil), later})
		}
	}
	return out
}

// filePnames are the pnames each file has in the cases it evaluates for.
func filePnames(files []string, results map[string][]pkgeval.Result) map[string][]string {
	out := map[string][]string{}
	for _, file := range files {
		for _, r := range results[file] {
			if r.OK() && !slices.Contains(out[file], r.Pname) {
				out[file] = append(out[file], r.Pname)
			}
		}
	}
	return out
}

// lineageFindings are the hints of the package files whose package was
// renamed, dropped or split between two releases given.
func (p *Plan) lineageFindings(steps []step, pnames map[string][]string) []Finding {
	var out []Finding
	for _, s := range steps {
		for _, file := range sortedKeys(pnames) {
			has := func(k string) bool { return slices.Contains(pnames[file], k) }
			for _, r := range s.Renamed {
				if has(r.From) && !has(r.To) {
					msg := renameAdvice(s.redist, s.New, r)
					if other := fileWith(pnames, r.To); other != "" {
						msg = fmt.Sprintf("%s is %s from %s %s (%s), which %s builds already: fold this file into it (the pname switched by version) and make %s an alias of %s, by hand (--fix writes nothing: a switch here would give two files of %s)",
							r.From, r.To, s.redist, s.New, strings.Join(r.Evidence, "; "), other, r.From, r.To, r.To)
					}
					for _, c := range s.LicenceChanges {
						if c.From == r.From {
							msg += fmt.Sprintf("; its licence changes from %q to %q (%s)", c.Old, c.New, orUnknown(c.NewAttr))
						}
					}
					out = append(out, Finding{Level: LevelHint, Kind: KindRenamed, File: file, Package: r.From, Version: s.New, Message: msg})
				}
			}
			for _, d := range s.Dropped {
				if has(d.Package) && !s.later[d.Package] {
					out = append(out, Finding{Level: LevelHint, Kind: KindDropped, File: file, Package: d.Package, Version: s.New,
						Message: fmt.Sprintf("%s is not in %s %s: its last release is %s (version %s); the file builds for releases up to %s only", d.Package, s.redist, s.New, d.LastRelease, d.LastVersion, d.LastRelease)})
				}
			}
			for _, m := range s.Moves {
				if has(m.From) {
					out = append(out, Finding{Level: LevelHint, Kind: KindSplit, File: file, Package: m.From, Version: s.New,
						Message: moveAdvice(m), Files: movedNames(m)})
				}
			}
		}
	}
	return out
}

// fileWith is the first file (by name) whose pnames include pname, ""
// for none.
func fileWith(pnames map[string][]string, pname string) string {
	for _, file := range sortedKeys(pnames) {
		if slices.Contains(pnames[file], pname) {
			return file
		}
	}
	return ""
}

func renameAdvice(redist, since string, r lineage.Rename) string {
	msg := fmt.Sprintf("%s is %s from %s %s (%s): ", r.From, r.To, redist, since, strings.Join(r.Evidence, "; "))
	if redist == "cuda" {
		mm := majorMinor(since)
		return msg + fmt.Sprintf("move the file to %s.nix with the pname switched by CUDA version (pname = if cudaAtLeast %q then %q else %q;) and make %s an alias in cuda-modules/aliases.nix (%s); --fix does both", r.To, mm, r.To, r.From, r.From, nixfix.AliasEntry(r.From, r.To, mm))
	}
	return msg + fmt.Sprintf("switch the pname on the release (%s from %s), and add an alias %s = %s", r.To, since, r.From, r.To)
}

func moveAdvice(m lineage.Move) string {
	var b strings.Builder
	switch m.Kind {
	case "split":
		fmt.Fprintf(&b, "%d files of %s are in the new package %s", len(m.Files), m.From, m.To)
	case "merge":
		fmt.Fprintf(&b, "%s is merged into %s: %d of its files are there", m.From, m.To, len(m.Files))
	default:
		fmt.Fprintf(&b, "%d files of %s moved to %s", len(m.Files), m.From, m.To)
	}
	if len(m.Sonames) > 0 {
		fmt.Fprintf(&b, ", sonames %s", strings.Join(m.Sonames, " "))
	}
	names := movedNames(m)
	fmt.Fprintf(&b, " (%s", strings.Join(names, ", "))
	if len(m.Files) > len(names) {
		fmt.Fprintf(&b, ", ... %d more", len(m.Files)-len(names))
	}
	fmt.Fprintf(&b, "); evidence: %s. %s needs a package file (--fix writes one with its outputs), and what used these files %s in its inputs", strings.Join(m.Evidence, "; "), m.To, m.To)
	return b.String()
}

func movedNames(m lineage.Move) []string {
	var out []string
	for i, f := range m.Files {
		if i == maxFilesNamed {
			break
		}
		out = append(out, f.New)
	}
	return out
}

// simpleAttr is an attribute path a licence is named by.
var simpleAttr = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_'-]*(\.[A-Za-z_][A-Za-z0-9_'-]*)*$`)

// sameLicence says whether a file's meta.license expression names the
// table's attribute: the same name in the same set (lib.licenses, or the
// CUDA package set's _cuda.lib.licenses), however the file reaches it
// (licenses.mit after an inherit is lib.licenses.mit). known is false
// when the expression is no plain attribute path (a list, a
// conditional): it is not judged.
func sameLicence(expr, attr string) (same, known bool) {
	if !simpleAttr.MatchString(expr) || !strings.Contains(expr, "licenses.") {
		return false, false
	}
	name := func(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
	cuda := func(s string) bool { return strings.Contains(s, "_cuda.") }
	return name(expr) == name(attr) && cuda(expr) == cuda(attr), true
}

// licenceFindings compare each package file's meta.license with the
// licence the newest manifest given names for its package, when the
// table (lib/manifest/licence) knows that licence: a hint where they
// disagree, or where the file sets none and the licence is not
// buildRedist's default.
func (p *Plan) licenceFindings(pnames map[string][]string) []Finding {
	if p.in.ReadFile == nil {
		return nil
	}
	var out []Finding
	for _, file := range sortedKeys(pnames) {
		m, rel := p.newestRelease(pnames[file])
		if rel == nil {
			continue
		}
		text, err := p.in.ReadFile(file)
		if err != nil {
			continue // unreadable files are reported by the evaluation
		}
		expr, found, err := nixfix.LicenceOf(string(text))
		if err != nil {
			continue
		}
		f := Finding{Level: LevelHint, Kind: KindLicence, File: file, Package: rel.Package, Version: m.Version}
		entry, known := licence.Lookup(rel.License)
		def := licence.Default(m.Redist)
		switch {
		case found && known:
			if same, judged := sameLicence(expr, entry.Attr); judged && !same {
				f.Message = fmt.Sprintf("meta.license is %s, but %s %s names the licence %q, which is %s (docs/licences.md; --fix writes it)", expr, m.Redist, m.Version, rel.License, entry.Attr)
			}
		case !found && known && entry.Attr != def:
			f.Message = fmt.Sprintf("no meta.license: buildRedist's default %s applies, but %s %s names the licence %q, which is %s (docs/licences.md; --fix writes it)", def, m.Redist, m.Version, rel.License, entry.Attr)
		}
		// A licence the table does not know says nothing of the file's
		// meta.license, nor of the default: no guess is made.
		if f.Message != "" {
			out = append(out, f)
		}
	}
	return out
}

// licenceChangeFindings are the hints of package files that set no
// meta.license while their package's licence changed, in a release
// given, to one the licence table does not know: buildRedist's default
// still applies, and whether it is right is the maintainer's call (no
// guess is made). The file of a renamed package that does not build the
// new name yet has the change in its rename hint instead.
func (p *Plan) licenceChangeFindings(steps []step, pnames map[string][]string) []Finding {
	if p.in.ReadFile == nil {
		return nil
	}
	var out []Finding
	for _, s := range steps {
		for _, c := range s.LicenceChanges {
			if c.NewAttr != "" || c.Old == c.New {
				continue // known to the table (licenceFindings judges it), or only the text changed
			}
			for _, file := range sortedKeys(pnames) {
				if !slices.Contains(pnames[file], c.Package) || p.setsLicence(file) {
					continue
				}
				out = append(out, Finding{Level: LevelHint, Kind: KindLicence, File: file, Package: c.Package, Version: s.New,
					Message: fmt.Sprintf("no meta.license: buildRedist's default %s applies, but from %s %s the manifest names the licence %q (before: %q), which the licence table does not know (docs/licences.md): set meta.license by hand", licence.Default(s.redist), s.redist, s.New, c.New, c.Old)})
			}
		}
	}
	return out
}

// setsLicence says whether a package file sets meta.license (or cannot
// be read: its evaluation reports that).
func (p *Plan) setsLicence(file string) bool {
	text, err := p.in.ReadFile(file)
	if err != nil {
		return true
	}
	_, found, err := nixfix.LicenceOf(string(text))
	return found || err != nil
}

// newestRelease is the newest manifest given that has one of pnames, and
// that release.
func (p *Plan) newestRelease(pnames []string) (Manifest, *manifest.Release) {
	var best Manifest
	var rel *manifest.Release
	for _, m := range p.in.Manifests {
		if m.Parsed == nil {
			continue
		}
		for _, pn := range pnames {
			r := m.Parsed.Releases[pn]
			if r == nil {
				continue
			}
			if rel == nil || best.Redist == m.Redist && manifest.CompareVersions(m.Version, best.Version) > 0 {
				best, rel = m, r
			}
		}
	}
	return best, rel
}

// WithReadFile is the plan reading package files with read (the fix's
// recheck reads the edited copy).
func (p *Plan) WithReadFile(read func(file string) ([]byte, error)) *Plan {
	q := *p
	q.in.ReadFile = read
	return &q
}

// LicenceFix is what --fix writes for a licence hint: the table's
// attribute, when the table knows the manifest's licence ("" when it
// does not: nothing is written).
func (p *Plan) LicenceFix(f Finding) string {
	if f.Kind != KindLicence {
		return ""
	}
	for _, m := range p.in.Manifests {
		if m.Version == f.Version && m.Parsed != nil && m.Parsed.Releases[f.Package] != nil {
			if e, ok := licence.Lookup(m.Parsed.Releases[f.Package].License); ok {
				return e.Attr
			}
		}
	}
	return ""
}

// PnameSwitch is what --fix writes for a rename hint: the file's pname
// From becomes To from CUDA version Since (major.minor).
type PnameSwitch struct{ From, To, Since string }

// RenameFix is the pname switch of a rename hint of the cuda redist;
// false for another redist (its releases are no CUDA version a file can
// test) or another finding.
func (p *Plan) RenameFix(f Finding) (PnameSwitch, bool) {
	if f.Kind != KindRenamed {
		return PnameSwitch{}, false
	}
	for _, s := range p.lineages() {
		if s.redist != "cuda" || s.New != f.Version {
			continue
		}
		for _, r := range s.Renamed {
			if r.From == f.Package {
				return PnameSwitch{From: r.From, To: r.To, Since: majorMinor(s.New)}, true
			}
		}
	}
	return PnameSwitch{}, false
}

func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	return strings.Join(parts[:min(2, len(parts))], ".")
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func orUnknown(attr string) string {
	if attr == "" {
		return "unknown to the licence table: set meta.license by hand"
	}
	return attr
}
