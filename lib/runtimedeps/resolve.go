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

// Archive is one archive of a release with its detection.
type Archive struct {
	manifest.Archive
	Features *features.Features
}

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
	byPlatform map[string]map[string][]string // platform → library name → packages
}

// NewRelease indexes archives.
func NewRelease(archives []Archive) *Release {
	r := &Release{byPlatform: map[string]map[string][]string{}}
	for _, a := range archives {
		if a.Features == nil {
			continue
		}
		m := r.byPlatform[a.Platform]
		if m == nil {
			m = map[string][]string{}
			r.byPlatform[a.Platform] = m
		}
		for _, name := range libraryNames(a.Features) {
			if !slices.Contains(m[name], a.Package) {
				m[name] = append(m[name], a.Package)
				sort.Strings(m[name])
			}
		}
	}
	return r
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
func (r Resolver) Resolve(a Archive) []features.ResolvedLoad {
	if a.Features == nil {
		return nil
	}
	own := map[string]bool{}
	for _, n := range libraryNames(a.Features) {
		own[n] = true
	}
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
func (r Resolver) provider(a Archive, own map[string]bool, name, glob string) features.LoadProvider {
	if glob != "" && Generic(glob) {
		return features.LoadProvider{Kind: features.ProviderUnknown,
			Reason: fmt.Sprintf("the template %s can expand to any library: what it loads is decided at run time", name)}
	}
	if m := matching(name, glob, own); len(m) > 0 {
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
func (rel *Release) provider(a Archive, name, glob string, ownRelease bool) (features.LoadProvider, bool) {
	libs := rel.byPlatform[a.Platform]
	byPkg := map[string][]string{}
	for soname, pkgs := range libs {
		if !Matches(name, glob, soname) {
			continue
		}
		for _, p := range pkgs {
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

// matching are the names of set a load matches, sorted.
func matching(name, glob string, set map[string]bool) []string {
	var out []string
	for s := range set {
		if Matches(name, glob, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
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
