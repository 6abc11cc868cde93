package runtimedeps

import (
	"path"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Resolved is an archive with its resolved loads.
type Resolved struct {
	manifest.Archive
	Loads []features.ResolvedLoad
}

// PackageLoads gathers the resolved loads of a manifest's archives per
// package: each name once, with the libraries and archives that load it
// (buildRedist.json). A name that resolves differently on two platforms
// is listed once per provider.
func PackageLoads(archives []Resolved) map[string][]features.PackageLoad {
	type key struct{ pkg, name, kind, provider string }
	acc := map[key]*features.PackageLoad{}
	var order []key
	for _, a := range archives {
		for _, l := range a.Loads {
			k := key{a.Package, l.Name, l.Provider.Kind, l.Provider.Package}
			p := acc[k]
			if p == nil {
				p = &features.PackageLoad{Name: l.Name, Glob: l.Glob, Provider: l.Provider}
				acc[k] = p
				order = append(order, k)
			}
			p.Libraries = addSorted(p.Libraries, path.Base(l.Library))
			p.Archives = addSorted(p.Archives, a.Platform+"/"+a.Variant.String())
			p.Provider.Sonames = union(p.Provider.Sonames, l.Provider.Sonames)
		}
	}
	out := map[string][]features.PackageLoad{}
	for _, k := range order {
		out[k.pkg] = append(out[k.pkg], *acc[k])
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	}
	return out
}

// IndexLoads are an archive's loads as the index keeps them: each name
// and provider once, sorted.
func IndexLoads(loads []features.ResolvedLoad) []features.IndexLoad {
	seen := map[features.IndexLoad]bool{}
	var out []features.IndexLoad
	for _, l := range loads {
		il := features.IndexLoad{Name: l.Name, Provider: l.Provider.Kind, Package: l.Provider.Package}
		if !seen[il] {
			seen[il] = true
			out = append(out, il)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Provider+out[i].Package < out[j].Provider+out[j].Package
	})
	return out
}

func addSorted(list []string, s string) []string {
	i := sort.SearchStrings(list, s)
	if i < len(list) && list[i] == s {
		return list
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = s
	return list
}

func union(a, b []string) []string {
	for _, s := range b {
		a = addSorted(a, s)
	}
	return a
}
