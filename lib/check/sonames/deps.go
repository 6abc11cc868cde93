package sonames

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Archive is one archive's libraries.
type Archive struct {
	manifest.Archive
	Provided, Needed []string
}

// FromFeatures reads an archive's provided and needed sonames (every
// group of lib/).
func FromFeatures(a manifest.Archive, f *features.Features) Archive {
	return Archive{Archive: a, Provided: flatten(f.ProvidedLibs), Needed: flatten(f.NeededLibs)}
}

func flatten(g features.Grouped) []string {
	set := map[string]bool{}
	for _, s := range g.List {
		set[s] = true
	}
	for _, l := range g.Groups {
		for _, s := range l {
			set[s] = true
		}
	}
	return sortedKeys(set)
}

// System reports whether a soname is outside any package's concern: the
// C library, libstdc++/libgcc_s/libatomic/libgomp (gcc's runtime, which
// buildRedist always adds as `lib.getLib stdenv.cc.cc`), the dynamic loader,
// and the driver's libcuda.so.1 (found at run time in /run/opengl-driver).
func System(soname string) bool {
	base, _, _ := strings.Cut(soname, ".so")
	switch base {
	case "libc", "libm", "libdl", "libpthread", "librt", "libutil", "libresolv", "libanl", "libmvec", "libnsl", "libBrokenLocale",
		"libstdc++", "libgcc_s", "libatomic", "libgomp":
		return true
	}
	if strings.HasPrefix(soname, "ld-linux") || strings.HasPrefix(soname, "ld64.so") {
		return true
	}
	return soname == "libcuda.so.1"
}

// Index maps sonames to the packages providing them, per platform.
type Index struct {
	byPlatform map[string]map[string][]string // platform → soname → packages
	packages   map[string]bool
}

// NewIndex indexes the provided sonames of archives (one release).
func NewIndex(archives []Archive) *Index {
	ix := &Index{byPlatform: map[string]map[string][]string{}, packages: map[string]bool{}}
	for _, a := range archives {
		ix.packages[a.Package] = true
		m := ix.byPlatform[a.Platform]
		if m == nil {
			m = map[string][]string{}
			ix.byPlatform[a.Platform] = m
		}
		for _, s := range a.Provided {
			if !contains(m[s], a.Package) {
				m[s] = append(m[s], a.Package)
				sort.Strings(m[s])
			}
		}
	}
	return ix
}

// Providers are the packages providing soname on platform.
func (ix *Index) Providers(platform, soname string) []string {
	return ix.byPlatform[platform][soname]
}

// Known reports whether pkg is a package of the indexed release.
func (ix *Index) Known(pkg string) bool { return ix.packages[pkg] }

// Need is one soname an archive needs, and who provides it.
type Need struct {
	Soname    string   `json:"soname"`
	Providers []string `json:"providers"` // empty: nothing in the release provides it
}

// Needs lists what an archive needs from other packages: its needed
// sonames less the system's and less its own, each with its providers in
// the indexes (the first index with a provider wins: the archive's own
// release first).
func Needs(a Archive, indexes ...*Index) []Need {
	own := map[string]bool{}
	for _, s := range a.Provided {
		own[s] = true
	}
	var out []Need
	for _, s := range a.Needed {
		if own[s] || System(s) {
			continue
		}
		n := Need{Soname: s, Providers: []string{}}
		for _, ix := range indexes {
			for _, p := range ix.Providers(a.Platform, s) {
				if p != a.Package {
					n.Providers = append(n.Providers, p)
				}
			}
			if len(n.Providers) > 0 {
				break
			}
		}
		out = append(out, n)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Inputs are what a package file gives its build, by package name.
type Inputs struct {
	// BuildInputs are the file's own buildInputs.
	BuildInputs []string
	// Available is everything autoPatchelfHook searches: buildInputs,
	// propagatedBuildInputs, and what those propagate in turn.
	Available []string
	// Ignore is autoPatchelfIgnoreMissingDeps (glob patterns);
	// IgnoreAll when it is true.
	Ignore    []string
	IgnoreAll bool
}

// Finding is a disagreement between what an archive needs and a package
// file's inputs. Errors fail the build (autoPatchelfHook finds no
// provider); hints do not.
type Finding struct {
	Error   bool   `json:"error"`
	Kind    string `json:"kind"` // missingDependency, unresolvedDependency, unusedDependency
	Soname  string `json:"soname,omitempty"`
	Input   string `json:"input,omitempty"`
	Message string `json:"message"`
}

// Compare checks an archive's needs against a package file's inputs.
// known tells which package names are packages of the manifests (for
// any other input, such as zlib, what it provides is unknown).
func Compare(needs []Need, in Inputs, known func(string) bool) []Finding {
	available := map[string]bool{}
	for _, p := range slices.Concat(in.Available, in.BuildInputs) {
		available[p] = true
	}
	// An input that may provide sonames we cannot see.
	outsider := slices.ContainsFunc(slices.Concat(in.Available, in.BuildInputs), func(p string) bool { return !known(p) })
	var out []Finding
	used := map[string]bool{}
	for _, n := range needs {
		for _, p := range n.Providers {
			used[p] = true
		}
		if in.ignored(n.Soname) {
			continue
		}
		if len(n.Providers) == 0 {
			if !outsider {
				out = append(out, Finding{Kind: "unresolvedDependency", Soname: n.Soname,
					Message: "needs " + n.Soname + ", which no package of the manifests provides: a buildInput from outside them must, or autoPatchelfIgnoreMissingDeps must list it"})
			}
			continue
		}
		if !slices.ContainsFunc(n.Providers, func(p string) bool { return available[p] }) {
			out = append(out, Finding{Error: true, Kind: "missingDependency", Soname: n.Soname, Input: n.Providers[0],
				Message: "needs " + n.Soname + " (from " + strings.Join(n.Providers, " or ") + "), which no buildInput provides: autoPatchelfHook would fail"})
		}
	}
	for _, p := range in.BuildInputs {
		if known(p) && !used[p] {
			out = append(out, Finding{Kind: "unusedDependency", Input: p,
				Message: "buildInput " + p + " provides none of the libraries the archive needs"})
		}
	}
	return out
}

func (in Inputs) ignored(soname string) bool {
	if in.IgnoreAll {
		return true
	}
	for _, pat := range in.Ignore {
		if ok, _ := path.Match(pat, soname); ok || pat == soname {
			return true
		}
	}
	return false
}
