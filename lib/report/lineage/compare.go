package lineage

import (
	"fmt"
	"path"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest/licence"
)

// Lineage is how a redist's packages go from release Old to release New.
type Lineage struct {
	Redist  string    `json:"redist"`
	Old     string    `json:"old"`
	New     string    `json:"new"`
	Added   []Added   `json:"added"`
	Dropped []Dropped `json:"dropped"`
	Renamed []Rename  `json:"renamed"`
	// Moves are files and sonames that left one package for another: a
	// split (into a new package), a merge (out of a dropped one), or a
	// move between two packages of both releases.
	Moves          []Move          `json:"moves"`
	LicenceChanges []LicenceChange `json:"licenceChanges"`
}

// Added is a package of New that is neither in Old nor a rename.
type Added struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Version string `json:"version"`
	License string `json:"license"`
	// From lists other redists that have held the package.
	From []Elsewhere `json:"from,omitempty"`
}

// Dropped is a package of Old that New does not have under any key.
type Dropped struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	// LastVersion is the package's version in its last release,
	// LastRelease.
	LastVersion string `json:"lastVersion"`
	LastRelease string `json:"lastRelease"`
	License     string `json:"license"`
	// MovedTo lists other redists that hold the package.
	MovedTo []Elsewhere `json:"movedTo,omitempty"`
}

// Elsewhere is a release of another redist that has the package, and
// what matched (its key, or its name).
type Elsewhere struct {
	Redist   string `json:"redist"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Evidence string `json:"evidence"`
}

// Rename is a package under a new key.
type Rename struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Name       string   `json:"name"`
	OldVersion string   `json:"oldVersion"`
	NewVersion string   `json:"newVersion"`
	Evidence   []string `json:"evidence"`
}

// Move is what went from one package to another.
type Move struct {
	// Kind is "split" (To is a new package), "merge" (From is dropped) or
	// "move" (both are in both releases).
	Kind     string      `json:"kind"`
	From     string      `json:"from"`
	To       string      `json:"to"`
	Files    []MovedFile `json:"files"`
	Sonames  []string    `json:"sonames"`
	Evidence []string    `json:"evidence"`
}

// MovedFile is a file of From in Old found in To in New; its path may
// change.
type MovedFile struct {
	Old string `json:"old"`
	New string `json:"new"`
	// By says how the two were matched: "path", "soname" or "name" (the
	// file name, unique on both sides).
	By string `json:"by"`
}

// LicenceChange is a package whose manifest licence differs between the
// two releases (From is its key in Old: a renamed package's old key).
type LicenceChange struct {
	Package string `json:"package"`
	From    string `json:"from"`
	Old     string `json:"old"`
	New     string `json:"new"`
	// OldAttr and NewAttr are the table's attributes (lib/manifest/licence);
	// "" when the table does not know the string.
	OldAttr string `json:"oldAttr"`
	NewAttr string `json:"newAttr"`
	// OldText and NewText are the licence files' texts, when both
	// archives were processed and their texts differ (the same string
	// over another text is a change too).
	OldText *features.LicenceText `json:"oldText,omitempty"`
	NewText *features.LicenceText `json:"newText,omitempty"`
}

// renameShare is the share of the larger tree two packages must have in
// common to be one package under two keys.
const renameShare = 0.5

// Compare follows the packages of old into new. others are releases of
// other redists, searched for the packages that appear or disappear.
func Compare(old, new *Release, others []*Release) *Lineage {
	l := &Lineage{Redist: new.Redist, Old: old.Version, New: new.Version,
		Added: []Added{}, Dropped: []Dropped{}, Renamed: []Rename{}, Moves: []Move{}, LicenceChanges: []LicenceChange{}}
	gone, came := missingFrom(old, new), missingFrom(new, old)
	// next maps a key of old to its key in new, prev the reverse.
	next, prev := map[string]string{}, map[string]string{}
	for k := range old.Packages {
		if new.Packages[k] != nil {
			next[k], prev[k] = k, k
		}
	}
	for _, d := range gone {
		n, evidence := bestRename(old.Packages[d], new.Packages, came, prev)
		if n == "" {
			continue
		}
		next[d], prev[n] = n, d
		op, np := old.Packages[d], new.Packages[n]
		l.Renamed = append(l.Renamed, Rename{From: d, To: n, Name: np.Name, OldVersion: op.Version, NewVersion: np.Version, Evidence: evidence})
	}
	l.Moves = moves(old, new, next, prev)
	for _, d := range gone {
		if next[d] != "" {
			continue
		}
		op := old.Packages[d]
		l.Dropped = append(l.Dropped, Dropped{Package: d, Name: op.Name, LastVersion: op.Version, LastRelease: old.Version, License: op.License,
			MovedTo: elsewhere(op, new.Redist, others)})
	}
	for _, n := range came {
		if prev[n] != "" {
			continue
		}
		np := new.Packages[n]
		l.Added = append(l.Added, Added{Package: n, Name: np.Name, Version: np.Version, License: np.License, From: elsewhere(np, new.Redist, others)})
	}
	for _, k := range sortedKeys(next) {
		if c, ok := licenceChange(k, old.Packages[k], new.Packages[next[k]]); ok {
			l.LicenceChanges = append(l.LicenceChanges, c)
		}
	}
	return l
}

// missingFrom are the keys of a's packages that b does not have, sorted.
func missingFrom(a, b *Release) []string {
	var keys []string
	for _, k := range sortedKeys(a.Packages) {
		if b.Packages[k] == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

// licenceChange is the change of licence (its name, or its text) of
// package k of old, op, kept as np; ok is false when there is none.
func licenceChange(k string, op, np *Package) (LicenceChange, bool) {
	textChanged := op.Text != nil && np.Text != nil && op.Text.SHA256 != np.Text.SHA256
	if op.License == np.License && !textChanged {
		return LicenceChange{}, false
	}
	oa, _ := licence.Lookup(op.License)
	na, _ := licence.Lookup(np.License)
	c := LicenceChange{Package: np.Key, From: k, Old: op.License, New: np.License, OldAttr: oa.Attr, NewAttr: na.Attr}
	if textChanged {
		c.OldText, c.NewText = op.Text, np.Text
	}
	return c, true
}

// bestRename finds the package of came (not yet claimed in prev) that is
// op under a new key, and the evidence that decided. Trees decide when
// both packages have one: they must share renameShare of the larger
// tree; the name alone decides without them.
func bestRename(op *Package, pkgs map[string]*Package, came []string, prev map[string]string) (string, []string) {
	best, bestShare := "", -1.0
	var bestEvidence []string
	for _, n := range came {
		np := pkgs[n]
		if prev[n] != "" {
			continue
		}
		sameName := op.Name != "" && op.Name == np.Name
		var evidence []string
		share := 0.0
		if op.HasTree() && np.HasTree() {
			common := 0
			for f := range op.Tree {
				if np.Tree[f] {
					common++
				}
			}
			larger := max(len(op.Tree), len(np.Tree))
			if larger > 0 {
				share = float64(common) / float64(larger)
			}
			if share < renameShare {
				continue
			}
			evidence = append(evidence, fmt.Sprintf("trees: %d of %d files the same", common, larger))
			if len(op.Sonames) > 0 || len(np.Sonames) > 0 {
				evidence = append(evidence, fmt.Sprintf("sonames: %s", sonameAgreement(op.Sonames, np.Sonames)))
			}
		} else if !sameName {
			continue
		}
		if sameName {
			evidence = append([]string{fmt.Sprintf("manifest: the same name %q", op.Name)}, evidence...)
		}
		if share > bestShare {
			best, bestShare, bestEvidence = n, share, evidence
		}
	}
	return best, bestEvidence
}

func sonameAgreement(a, b map[string]bool) string {
	same := 0
	for s := range a {
		if b[s] {
			same++
		}
	}
	if same == len(a) && same == len(b) {
		return fmt.Sprintf("the same %d", same)
	}
	return fmt.Sprintf("%d of %d and %d the same", same, len(a), len(b))
}

// moves finds the files and sonames that left a package of old for
// another package of new. A package's loss is what its tree in old has
// and its tree in new (under its new key when renamed) does not; a
// package's gain the reverse. Both trees must be known: without them
// nothing can be said.
func moves(old, new *Release, next, prev map[string]string) []Move {
	out := []Move{}
	// A path several packages of a release hold (LICENSE, README) says
	// nothing of where a file went.
	shared := sharedPaths(old)
	for p := range sharedPaths(new) {
		shared[p] = true
	}
	for _, a := range sortedKeys(old.Packages) {
		op := old.Packages[a]
		lost, lostSonames, ok := treeChange(op, new.Packages[next[a]], shared)
		if !ok {
			continue
		}
		claimed := map[string]bool{}
		var found []Move
		// Two passes: a file found under its own path anywhere comes
		// before one matched by its soname or its name.
		for _, exact := range []bool{true, false} {
			for _, b := range sortedKeys(new.Packages) {
				if b == next[a] {
					continue
				}
				np := new.Packages[b]
				gained, gainedSonames, ok := treeChange(np, old.Packages[prev[b]], shared)
				if !ok {
					continue
				}
				files := match(lost, gained, op, np, claimed, exact)
				var sonames []string
				if exact {
					sonames = sortedKeys(intersect(lostSonames, gainedSonames))
				}
				if len(files) == 0 && len(sonames) == 0 {
					continue
				}
				found = addMove(found, a, b, files, sonames)
			}
		}
		for _, m := range found {
			out = append(out, finishMove(m, a, next, prev))
		}
	}
	return out
}

// treeChange is what pkg's tree and sonames hold that other's (pkg in the
// other release, nil if none) do not, paths in shared aside; ok is false
// when either tree is unknown.
func treeChange(pkg, other *Package, shared map[string]bool) (files, sonames map[string]bool, ok bool) {
	if !pkg.HasTree() || other != nil && !other.HasTree() {
		return nil, nil, false
	}
	files, sonames = minus(pkg.Tree, shared), pkg.Sonames
	if other != nil {
		files, sonames = minus(files, other.Tree), minus(pkg.Sonames, other.Sonames)
	}
	return files, sonames, true
}

// finishMove names the kind of m, a move out of package a (a split when
// its target is new, a merge when a is gone, else a move), sorts its files
// and states its evidence.
func finishMove(m Move, a string, next, prev map[string]string) Move {
	switch {
	case prev[m.To] == "":
		m.Kind = "split"
	case next[a] == "":
		m.Kind = "merge"
	default:
		m.Kind = "move"
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Old < m.Files[j].Old })
	m.Evidence = []string{fmt.Sprintf("trees: %d files", len(m.Files))}
	if len(m.Sonames) > 0 {
		m.Evidence = append(m.Evidence, fmt.Sprintf("sonames: %d", len(m.Sonames)))
	}
	return m
}

func addMove(found []Move, from, to string, files []MovedFile, sonames []string) []Move {
	for i := range found {
		if found[i].To == to {
			found[i].Files = append(found[i].Files, files...)
			found[i].Sonames = append(found[i].Sonames, sonames...)
			return found
		}
	}
	if files == nil {
		files = []MovedFile{}
	}
	if sonames == nil {
		sonames = []string{}
	}
	return append(found, Move{From: from, To: to, Files: files, Sonames: sonames})
}

// match pairs lost files of op with gained files of np not yet claimed:
// by path (exact), or else by soname, then by a file name that is unique
// among the unclaimed files on both sides.
func match(lost, gained map[string]bool, op, np *Package, claimed map[string]bool, exact bool) []MovedFile {
	if exact {
		return matchPaths(lost, gained, claimed)
	}
	bySoname, names := gainedIndex(np, gained)
	lostNames := map[string]int{}
	for f := range lost {
		if !claimed[f] {
			lostNames[path.Base(f)]++
		}
	}
	var out []MovedFile
	// used: np's gained files matched already (by path: those of lost).
	used := map[string]bool{}
	for f := range gained {
		used[f] = lost[f]
	}
	for _, f := range sortedKeys(lost) {
		if claimed[f] {
			continue
		}
		if s, ok := op.Libs[f]; ok && bySoname[s] != "" && !used[bySoname[s]] {
			claimed[f], used[bySoname[s]] = true, true
			out = append(out, MovedFile{Old: f, New: bySoname[s], By: "soname"})
			continue
		}
		if c := names[path.Base(f)]; len(c) == 1 && lostNames[path.Base(f)] == 1 && !used[c[0]] {
			claimed[f], used[c[0]] = true, true
			out = append(out, MovedFile{Old: f, New: c[0], By: "name"})
		}
	}
	return out
}

// gainedIndex finds np's gained files by the soname of each library
// among them, and by file name.
func gainedIndex(np *Package, gained map[string]bool) (bySoname map[string]string, names map[string][]string) {
	bySoname = map[string]string{}
	for p, s := range np.Libs {
		if gained[p] {
			bySoname[s] = p
		}
	}
	names = map[string][]string{}
	for p := range gained {
		names[path.Base(p)] = append(names[path.Base(p)], p)
	}
	return bySoname, names
}

// matchPaths pairs the lost files that are gained under the same path
// and not yet claimed.
func matchPaths(lost, gained, claimed map[string]bool) []MovedFile {
	var out []MovedFile
	for _, f := range sortedKeys(lost) {
		if gained[f] && !claimed[f] {
			claimed[f] = true
			out = append(out, MovedFile{Old: f, New: f, By: "path"})
		}
	}
	return out
}

func minus(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		if !b[k] {
			out[k] = true
		}
	}
	return out
}

func intersect(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

// elsewhere lists the releases of other redists that hold p (by key, or
// by its name), the first of each redist in version order.
func elsewhere(p *Package, redist string, others []*Release) []Elsewhere {
	first := map[string]Elsewhere{}
	for _, r := range others {
		if r.Redist == redist {
			continue
		}
		for _, k := range sortedKeys(r.Packages) {
			q := r.Packages[k]
			evidence := ""
			switch {
			case k == p.Key:
				evidence = "manifest: the same key"
			case p.Name != "" && q.Name == p.Name:
				evidence = fmt.Sprintf("manifest: the same name %q", p.Name)
			default:
				continue
			}
			e, seen := first[r.Redist]
			if !seen || manifest.CompareVersions(r.Version, e.Version) < 0 {
				first[r.Redist] = Elsewhere{Redist: r.Redist, Version: r.Version, Package: k, Evidence: evidence}
			}
		}
	}
	var out []Elsewhere
	for _, r := range sortedKeys(first) {
		out = append(out, first[r])
	}
	return out
}

// sharedPaths are the paths more than one package of r holds.
func sharedPaths(r *Release) map[string]bool {
	seen, out := map[string]bool{}, map[string]bool{}
	for _, p := range r.Packages {
		for f := range p.Tree {
			if seen[f] {
				out[f] = true
			}
			seen[f] = true
		}
	}
	return out
}
