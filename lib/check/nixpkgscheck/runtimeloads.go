package nixpkgscheck

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// KindUnreachableLoad is the hint for a library an archive loads at run
// time (dlopen) that another package provides and the package file makes
// reachable by no appendRunpaths, runtimeDependencies or input.
const KindUnreachableLoad = "unreachableRuntimeLoad"

// RuntimeLoad is what an unreachableRuntimeLoad hint proposes: the
// directory of Provider on the RUNPATH of the package's libraries, for
// Sonames, from package version Since on ("" in every release read).
type RuntimeLoad struct {
	Provider string   `json:"provider"`
	Sonames  []string `json:"sonames"`
	Since    string   `json:"since,omitempty"`
	Until    string   `json:"until,omitempty"`
}

// loadContext resolves the targets' runtime loads with the aggregate's
// rules (lib/runtimedeps): each archive against its own manifest first,
// then every manifest checked (cuDNN's NVRTC is in the cuda manifest),
// the driver and the soname index; and says, per package and provider,
// from which package version the load appears over the manifests.
type loadContext struct {
	resolved map[*target][]features.ResolvedLoad
	since    map[[2]string]runtimedeps.Appearance // package, provider package → appearance
}

func (p *Plan) loadContext() loadContext {
	perManifest := map[[2]string][]manifest.DetectedArchive{}
	var all []manifest.DetectedArchive
	anyLoad := false
	for _, tg := range p.targets {
		if tg.Features == nil {
			continue
		}
		a := tg.DetectedArchive
		k := [2]string{tg.Redist, tg.Manifest}
		perManifest[k] = append(perManifest[k], a)
		all = append(all, a)
		for _, l := range tg.Features.Libraries {
			anyLoad = anyLoad || len(l.RuntimeLoads) > 0
		}
	}
	lc := loadContext{resolved: map[*target][]features.ResolvedLoad{}, since: map[[2]string]runtimedeps.Appearance{}}
	if !anyLoad {
		return lc
	}
	var free *sonameindex.Index
	if p.in.Vendored != nil && p.in.Vendored.Index != nil {
		free = p.in.Vendored.Index
	} else {
		free = sonameindex.Default()
	}
	everything := runtimedeps.NewRelease(all)
	releases := map[[2]string]*runtimedeps.Release{}
	versions := map[[2]string]map[string]string{}
	for _, m := range p.in.Manifests {
		versions[[2]string{m.Redist, m.Version}] = m.Releases
	}
	var prs []runtimedeps.PackageRelease
	for i := range p.targets {
		tg := &p.targets[i]
		if tg.Features == nil {
			continue
		}
		k := [2]string{tg.Redist, tg.Manifest}
		if releases[k] == nil {
			releases[k] = runtimedeps.NewRelease(perManifest[k])
		}
		r := runtimedeps.Resolver{Releases: []*runtimedeps.Release{releases[k], everything}, Free: free}
		loads := r.Resolve(tg.DetectedArchive)
		lc.resolved[tg] = loads
		prs = append(prs, runtimedeps.PackageRelease{Package: tg.Package, Version: versions[k][tg.Package], Loads: byProvider(loads)})
	}
	for _, a := range runtimedeps.Since(prs) {
		lc.since[[2]string{a.Package, a.Load.Package}] = a
	}
	return lc
}

// byProvider are the loads as Since counts them here: one per provider
// package (what a package file adds), the name left out.
func byProvider(loads []features.ResolvedLoad) []features.IndexLoad {
	var out []features.IndexLoad
	for _, l := range loads {
		if p, ok := needsRunpath(l); ok {
			il := features.IndexLoad{Provider: l.Provider.Kind, Package: p}
			if !slices.Contains(out, il) {
				out = append(out, il)
			}
		}
	}
	return out
}

// needsRunpath: a load a package file must make reachable, and the
// package that provides it. The same package ($ORIGIN) and the driver
// (the driver link every redist package gets) are reachable already; an
// unknown provider, or a free library without a known Nixpkgs
// attribute, names nothing to add.
func needsRunpath(l features.ResolvedLoad) (string, bool) {
	switch l.Provider.Kind {
	case features.ProviderPackage, features.ProviderFree:
		return l.Provider.Package, l.Provider.Package != ""
	}
	return "", false
}

// runtimeLoadFindings are the hints for one archive's loads its package
// file does not make reachable: one per provider package.
func (lc loadContext) runtimeLoadFindings(tg *target, base Finding, file string, ev pkgeval.Result, available []string) []Finding {
	reach := map[string]bool{}
	for _, list := range [][]string{ev.RunpathPackages(), ev.RuntimeDependencies, ev.BuildInputs, available} {
		for _, p := range list {
			reach[p] = true
		}
	}
	type want struct {
		sonames, evidence []string
	}
	byProv := map[string]*want{}
	for _, l := range lc.resolved[tg] {
		prov, ok := needsRunpath(l)
		if !ok || reach[prov] {
			continue
		}
		w := byProv[prov]
		if w == nil {
			w = &want{}
			byProv[prov] = w
		}
		if !slices.Contains(w.sonames, l.Name) {
			w.sonames = append(w.sonames, l.Name)
			w.evidence = append(w.evidence, fmt.Sprintf("%s: %s in %s", path.Base(l.Library), l.Evidence.Kind, l.Evidence.Section))
		}
	}
	provs := make([]string, 0, len(byProv))
	for p := range byProv {
		provs = append(provs, p)
	}
	sort.Strings(provs)
	var out []Finding
	for _, prov := range provs {
		w := byProv[prov]
		f := base
		f.Level, f.Kind, f.File = LevelHint, KindUnreachableLoad, file
		rl := &RuntimeLoad{Provider: prov, Sonames: w.sonames}
		when := ""
		if a, ok := lc.since[[2]string{tg.Package, prov}]; ok && !a.Always {
			rl.Since, rl.Until = a.Since, a.Until
			when = " (from " + tg.Package + " " + a.Since + " on"
			if a.Until != "" {
				when += ", not in " + a.Until
			}
			when += ")"
		}
		f.RuntimeLoad = rl
		f.Message = fmt.Sprintf("loads %s at run time (%s), which %s provides%s; nothing makes it reachable (no appendRunpaths, runtimeDependencies or input names %s): "+
			"add \"${lib.getLib %s}/lib\" to appendRunpaths", strings.Join(w.sonames, ", "), strings.Join(w.evidence, "; "), prov, when, prov, prov)
		out = append(out, f)
	}
	return out
}
