package runtimedeps

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// IsLoad reports whether a confidence makes a load: declared, high and
// medium do; low (a name inside a message) is kept in the record for
// the maintainer but resolved as no load (detector/dlopen.IsLoad, which
// the aggregate does not import).
func IsLoad(confidence string) bool {
	return confidence == "declared" || confidence == "high" || confidence == "medium"
}

// Release indexes the libraries the archives of one release (or of
// several manifests) provide, per platform: their sonames, and the names
// of their library files and links (an unversioned libfoo.so link is
// what a load of libfoo.so finds).
type Release struct {
	byPlatform map[string]*platformLibs
}

// platformLibs are one platform's library names, sorted (names), and the
// packages that have each.
type platformLibs struct {
	names names
	pkgs  map[string][]string
}

// NewRelease indexes the archives of a release with their detections.
func NewRelease(archives []manifest.DetectedArchive) *Release {
	r := &Release{byPlatform: map[string]*platformLibs{}}
	for _, a := range archives {
		if a.Features == nil {
			continue
		}
		pl := r.byPlatform[a.Platform]
		if pl == nil {
			pl = &platformLibs{pkgs: map[string][]string{}}
			r.byPlatform[a.Platform] = pl
		}
		for _, name := range libraryNames(a.Features) {
			if !slices.Contains(pl.pkgs[name], a.Package) {
				pl.pkgs[name] = append(pl.pkgs[name], a.Package)
				sort.Strings(pl.pkgs[name])
			}
		}
	}
	for _, pl := range r.byPlatform {
		pl.names = slices.Sorted(maps.Keys(pl.pkgs))
	}
	return r
}

// names is a sorted list of library names, searched by prefix: a load's
// candidates are the names that begin with its literal part (the name,
// or the glob up to its first wildcard), found by binary search, so a
// load costs in proportion to the names it can match, not to the size
// of the release.
type names []string

// matching are the names a load matches, sorted.
func (n names) matching(name, glob string) []string {
	prefix := name
	if glob != "" {
		prefix, _, _ = strings.Cut(glob, "*")
	}
	var out []string
	for _, s := range n.candidates(prefix) {
		if Matches(name, glob, s) {
			out = append(out, s)
		}
	}
	return out
}

// candidates are the names that begin with prefix: one binary search,
// then the matches themselves.
func (n names) candidates(prefix string) names {
	lo := sort.SearchStrings(n, prefix)
	hi := lo
	for hi < len(n) && strings.HasPrefix(n[hi], prefix) {
		hi++
	}
	return n[lo:hi]
}

// libraryNames are the names an archive's libraries answer to: the
// sonames it provides, and the file names of its shared libraries and
// *.so* links.
func libraryNames(f *features.Features) []string {
	set := map[string]bool{}
	for _, s := range flatten(f.ProvidedLibs) {
		set[s] = true
	}
	for _, l := range f.Libraries {
		if l.Kind == "shared" || l.Kind == "linkerScript" {
			set[path.Base(l.Path)] = true
			if l.Soname != "" {
				set[l.Soname] = true
			}
		}
	}
	for _, s := range f.Tree.Symlinks {
		if b := path.Base(s); strings.Contains(b, ".so") {
			set[b] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Resolver resolves the loads of archives against the releases (the
// archive's own first, then others: another redist's manifests, which
// check-nixpkgs has) and the soname index of free libraries (nil: none).
type Resolver struct {
	Releases []*Release
	Free     *sonameindex.Index
}

// Resolve resolves every load of the archive's libraries (the mentions
// left out), in library order, then name order.
func (r Resolver) Resolve(a manifest.DetectedArchive) []features.ResolvedLoad {
	if a.Features == nil {
		return nil
	}
	own := names(libraryNames(a.Features))
	var out []features.ResolvedLoad
	for _, lib := range a.Features.Libraries {
		for _, l := range lib.RuntimeLoads {
			if !IsLoad(l.Confidence) {
				continue
			}
			rl := features.ResolvedLoad{Library: lib.Path, Name: l.Name, Glob: l.Glob, Confidence: l.Confidence,
				Provider: r.provider(a, own, l.Name, l.Glob)}
			if len(l.Evidence) > 0 {
				rl.Evidence = l.Evidence[0]
			}
			out = append(out, rl)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Library != out[j].Library {
			return out[i].Library < out[j].Library
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// provider applies the rules in order: a generic template is unknown;
// then the archive itself, the driver, the releases' packages, the free
// index.
func (r Resolver) provider(a manifest.DetectedArchive, own names, name, glob string) features.LoadProvider {
	if glob != "" && Generic(glob) {
		return features.LoadProvider{Kind: features.ProviderUnknown,
			Reason: fmt.Sprintf("the template %s can expand to any library: what it loads is decided at run time", name)}
	}
	if m := own.matching(name, glob); len(m) > 0 {
		return features.LoadProvider{Kind: features.ProviderSamePackage, Package: a.Package, Sonames: m,
			Reason: "the archive has it; buildRedist puts $ORIGIN on every RUNPATH"}
	}
	if m, why := driverMatch(name, glob); len(m) > 0 {
		return features.LoadProvider{Kind: features.ProviderDriver, Sonames: m, Reason: why}
	}
	for i, rel := range r.Releases {
		if p, ok := rel.provider(a, name, glob, i == 0); ok {
			return p
		}
	}
	if r.Free != nil {
		if p, ok := freeProvider(r.Free, name, glob); ok {
			return p
		}
	}
	return features.LoadProvider{Kind: features.ProviderUnknown,
		Reason: "no package of the manifests, no driver library and no free library of the soname index has this name"}
}

// provider finds the package of the release providing a load on the
// archive's platform: a name or a glob that matches the libraries of
// one package. A glob matching several packages' libraries says nothing
// about which one is loaded: unknown, with the candidates.
func (rel *Release) provider(a manifest.DetectedArchive, name, glob string, ownRelease bool) (features.LoadProvider, bool) {
	pl := rel.byPlatform[a.Platform]
	if pl == nil {
		return features.LoadProvider{}, false
	}
	byPkg := map[string][]string{}
	for _, soname := range pl.names.matching(name, glob) {
		for _, p := range pl.pkgs[soname] {
			if p != a.Package {
				byPkg[p] = append(byPkg[p], soname)
			}
		}
	}
	if len(byPkg) == 0 {
		return features.LoadProvider{}, false
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
		sort.Strings(byPkg[p])
	}
	sort.Strings(pkgs)
	where := "another package of the release"
	if !ownRelease {
		where = "a package of another manifest given"
	}
	if len(pkgs) > 1 && glob != "" {
		return features.LoadProvider{Kind: features.ProviderUnknown, Sonames: flattenMap(byPkg, pkgs),
			Reason: fmt.Sprintf("the template matches libraries of %d packages (%s): which it loads is decided at run time", len(pkgs), strings.Join(pkgs, ", "))}, true
	}
	return features.LoadProvider{Kind: features.ProviderPackage, Package: pkgs[0], Sonames: byPkg[pkgs[0]],
		Reason: where + " provides it"}, true
}

// Generic reports whether a glob says nothing of which library it
// loads: nothing but wildcards, "lib", ".so" and separators (lib*.so,
// *.so, lib*.so.*).
func Generic(glob string) bool {
	rest := strings.NewReplacer("*", "", "lib", "", ".so", "", ".", "", "_", "", "-", "").Replace(glob)
	return rest == ""
}

func globMatch(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return err == nil && ok
}

func flatten(g features.Grouped) []string {
	out := append([]string(nil), g.List...)
	for _, l := range g.Groups {
		out = append(out, l...)
	}
	return out
}

func flattenMap(m map[string][]string, keys []string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, m[k]...)
	}
	return out
}
