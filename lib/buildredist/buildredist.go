package buildredist

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// ExpectedOutputs are the outputs buildRedist knows, in its order.
var ExpectedOutputs = []string{"out", "doc", "samples", "python", "bin", "dev", "include", "lib", "static", "stubs"}

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

// Tree is what an unpacked archive holds, as buildRedist sees it.
type Tree struct {
	// Files are regular files, Symlinks symlinks (dangling ones included:
	// moveToOutput moves them too), EmptyDirs directories without entries.
	Files     []string `json:"files"`
	Symlinks  []string `json:"symlinks"`
	EmptyDirs []string `json:"emptyDirs"`
	// UsrFiles are the regular files whose content contains "/usr/".
	UsrFiles []string `json:"usrFiles"`
	// UsrOnlyInPkgConfigVars are the *.pc files of UsrFiles whose every
	// "/usr/" is on a cudaroot=, libdir=…/lib or includedir=…/include line,
	// which patchCudaPkgConfig rewrites to store paths when the file ends
	// up in share/pkgconfig/.
	UsrOnlyInPkgConfigVars []string `json:"usrOnlyInPkgConfigVars"`
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

type kind int

const (
	kindFile kind = iota
	kindSymlink
	kindEmptyDir
)

// entry is one leaf of the prepared tree.
type entry struct {
	path string
	kind kind
	usr  bool // counts for the /usr/ check wherever it ends up
	// usrPkgConfigOnly: its /usr/ goes away if it is a share/pkgconfig/*.pc.
	usrPkgConfigOnly bool
}

// prepare applies buildRedist's postUnpack hooks: lib/<major> replaces
// lib/, and the content of top-level pkg-config/ and pkgconfig/ moves to
// share/pkgconfig/.
func prepare(t Tree, opts Options) (entries []entry, usedMajorDir bool) {
	usr := set(t.UsrFiles)
	pcOnly := set(t.UsrOnlyInPkgConfigVars)
	add := func(p string, k kind) {
		entries = append(entries, entry{path: p, kind: k, usr: usr[p] && k == kindFile, usrPkgConfigOnly: pcOnly[p]})
	}
	for _, p := range t.Files {
		add(p, kindFile)
	}
	for _, p := range t.Symlinks {
		add(p, kindSymlink)
	}
	for _, p := range t.EmptyDirs {
		add(p, kindEmptyDir)
	}
	if opts.CudaMajor != "" {
		prefix := "lib/" + opts.CudaMajor
		for _, e := range entries {
			if e.path == prefix || strings.HasPrefix(e.path, prefix+"/") {
				usedMajorDir = true
				break
			}
		}
		if usedMajorDir {
			var kept []entry
			for _, e := range entries {
				switch {
				case e.path == prefix || strings.HasPrefix(e.path, prefix+"/"):
					e.path = "lib" + strings.TrimPrefix(e.path, prefix)
					kept = append(kept, e)
				case e.path == "lib" || strings.HasPrefix(e.path, "lib/"):
					// removed with the rest of lib/
				default:
					kept = append(kept, e)
				}
			}
			entries = kept
		}
	}
	for i, e := range entries {
		for _, dir := range []string{"pkg-config/", "pkgconfig/"} {
			if rest, ok := strings.CutPrefix(e.path, dir); ok {
				entries[i].path = "share/pkgconfig/" + rest
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	return entries, usedMajorDir
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
// for the declared outputs (names outside ExpectedOutputs are dropped, as
// buildRedist does). moveToOutput keeps relative paths and searches every
// other output, so an entry ends in the last declared output, in
// ExpectedOutputs order, whose patterns match it; otherwise in out.
func install(entries []entry, declared []string, globstar bool) map[string][]entry {
	d := set(declared)
	owner := make([]string, len(entries))
	for i := range entries {
		owner[i] = "out"
	}
	parts := make([][]string, len(entries))
	for i, e := range entries {
		parts[i] = strings.Split(e.path, "/")
	}
	for _, o := range ExpectedOutputs[1:] {
		if !d[o] {
			continue
		}
		for i := range entries {
			if claims(splitPatterns[o], parts[i], globstar) {
				owner[i] = o
			}
		}
	}
	outputs := map[string][]entry{}
	for i, e := range entries {
		outputs[owner[i]] = append(outputs[owner[i]], e)
	}
	return outputs
}

var pkgConfigDir = regexp.MustCompile(`^share/pkgconfig/[^/]+\.pc$`)

// fhsReference reports whether the entry fails checkCudaFhsRefs: grep -r
// (no symlinks followed) for "/usr/", excluding files named LICENSE.
func (e entry) fhsReference() bool {
	if !e.usr || path.Base(e.path) == "LICENSE" {
		return false
	}
	return !(e.usrPkgConfigOnly && pkgConfigDir.MatchString(e.path))
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, v := range list {
		m[v] = true
	}
	return m
}
