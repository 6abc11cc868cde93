package buildredist

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Patterns are what moveToOutput moves into each output.
var Patterns = map[string][]string{
	"bin":     {"bin"},
	"dev":     {"**/*.pc", "**/*.cmake"},
	"include": {"include"},
	"lib":     {"lib", "lib64"},
	"static":  {"**/*.a"},
	"samples": {"samples"},
	"python":  {"**/*.whl"},
	"stubs":   {"stubs", "lib/stubs"},
}

// Options are the settings of a simulation.
type Options struct {
	// CudaMajor is cudaMajorVersion: lib/<CudaMajor>/ replaces lib/.
	CudaMajor string
	// Globstar is bash's globstar option: whether "**" matches any number
	// of directories. stdenv's setup does not set it, so by default "**"
	// is "*" and "**/*.pc" matches exactly one directory level.
	Globstar bool
}

// Kind is what an Entry is: a regular file, a symlink or an empty
// directory.
type Kind int

const (
	KindFile Kind = iota
	KindSymlink
	KindEmptyDir
)

// Entry is one leaf of the prepared tree.
type Entry struct {
	Path string
	Kind Kind
	usr  bool // counts for the /usr/ check wherever it ends up
	// usrPkgConfigOnly: its /usr/ goes away if it is a share/pkgconfig/*.pc.
	usrPkgConfigOnly bool
}

// Prepare applies buildRedist's postUnpack hooks: lib/<major> replaces
// lib/, and the content of top-level pkg-config/ and pkgconfig/ moves to
// share/pkgconfig/.
func Prepare(t features.Tree, opts Options) (entries []Entry, usedMajorDir bool) {
	usr := set(t.UsrFiles)
	pcOnly := set(t.UsrOnlyInPkgConfigVars)
	add := func(p string, k Kind) {
		entries = append(entries, Entry{Path: p, Kind: k, usr: usr[p] && k == KindFile, usrPkgConfigOnly: pcOnly[p]})
	}
	for _, p := range t.Files {
		add(p, KindFile)
	}
	for _, p := range t.Symlinks {
		add(p, KindSymlink)
	}
	for _, p := range t.EmptyDirs {
		add(p, KindEmptyDir)
	}
	if opts.CudaMajor != "" {
		entries, usedMajorDir = majorDirAsLib(entries, "lib/"+opts.CudaMajor)
	}
	for i, e := range entries {
		for _, dir := range []string{"pkg-config/", "pkgconfig/"} {
			if rest, ok := strings.CutPrefix(e.Path, dir); ok {
				entries[i].Path = "share/pkgconfig/" + rest
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, usedMajorDir
}

// underDir reports whether p is dir or below it.
func underDir(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// majorDirAsLib makes prefix (lib/<major>) the new lib/ when the tree
// has it: the rest of lib/ goes, and its entries move up.
func majorDirAsLib(entries []Entry, prefix string) ([]Entry, bool) {
	if !slices.ContainsFunc(entries, func(e Entry) bool { return underDir(e.Path, prefix) }) {
		return entries, false
	}
	var kept []Entry
	for _, e := range entries {
		switch {
		case underDir(e.Path, prefix):
			e.Path = "lib" + strings.TrimPrefix(e.Path, prefix)
			kept = append(kept, e)
		case underDir(e.Path, "lib"):
			// removed with the rest of lib/
		default:
			kept = append(kept, e)
		}
	}
	return kept, true
}

// globMatch reports whether the bash glob pattern matches p (both
// slash-separated, relative to an output). Without globstar "**" is "*".
// As in bash without dotglob, wildcards do not match a leading dot.
func globMatch(pattern, p string, globstar bool) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(p, "/"), globstar)
}

// splitPatterns splits each output's patterns once.
var splitPatterns = func() map[string][][]string {
	m := map[string][][]string{}
	for o, pats := range Patterns {
		for _, p := range pats {
			m[o] = append(m[o], strings.Split(p, "/"))
		}
	}
	return m
}()

func matchParts(pat, parts []string, globstar bool) bool {
	if len(pat) == 0 {
		return len(parts) == 0
	}
	if pat[0] == "**" && globstar {
		// Zero or more directories, none hidden.
		for i := 0; i <= len(parts); i++ {
			if matchParts(pat[1:], parts[i:], globstar) {
				return true
			}
			if i < len(parts) && strings.HasPrefix(parts[i], ".") {
				return false
			}
		}
		return false
	}
	if len(parts) == 0 {
		return false
	}
	p := pat[0]
	if p == "**" {
		p = "*"
	}
	if strings.HasPrefix(parts[0], ".") && !strings.HasPrefix(p, ".") {
		return false
	}
	ok, err := path.Match(p, parts[0])
	if err != nil || !ok {
		return false
	}
	return matchParts(pat[1:], parts[1:], globstar)
}

// claims reports whether one of patterns (split at "/") moves the entry
// whose path has the given components: a pattern matches the path or one
// of its parent directories.
func claims(patterns [][]string, parts []string, globstar bool) bool {
	for k := len(parts); k > 0; k-- {
		for _, pat := range patterns {
			if matchParts(pat, parts[:k], globstar) {
				return true
			}
		}
	}
	return false
}

// Install places every entry in the output buildRedist would leave it in,
// for the declared outputs (names outside features.BuildRedistOutputs are dropped, as
// buildRedist does). moveToOutput keeps relative paths and searches every
// other output, so an entry ends in the last declared output, in
// features.BuildRedistOutputs order, whose patterns match it; otherwise in out.
func Install(entries []Entry, declared []string, globstar bool) map[string][]Entry {
	d := set(declared)
	owner := make([]string, len(entries))
	for i := range entries {
		owner[i] = "out"
	}
	parts := make([][]string, len(entries))
	for i, e := range entries {
		parts[i] = strings.Split(e.Path, "/")
	}
	for _, o := range features.BuildRedistOutputs[1:] {
		if !d[o] {
			continue
		}
		for i := range entries {
			if claims(splitPatterns[o], parts[i], globstar) {
				owner[i] = o
			}
		}
	}
	outputs := map[string][]Entry{}
	for i, e := range entries {
		outputs[owner[i]] = append(outputs[owner[i]], e)
	}
	return outputs
}

var pkgConfigDir = regexp.MustCompile(`^share/pkgconfig/[^/]+\.pc$`)

// FHSReference reports whether the entry fails checkCudaFhsRefs: grep -r
// (no symlinks followed) for "/usr/", excluding files named LICENSE.
func (e Entry) FHSReference() bool {
	if !e.usr || path.Base(e.Path) == "LICENSE" {
		return false
	}
	return !(e.usrPkgConfigOnly && pkgConfigDir.MatchString(e.Path))
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, v := range list {
		m[v] = true
	}
	return m
}
