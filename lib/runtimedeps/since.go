package runtimedeps

import (
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Label is how a load and its provider read in lists and diffs:
// "libnvrtc.so.13 → cuda_nvrtc", "libcuda.so.1 → driver",
// "libnuma.so.%s → numactl (free)", "libgdrapi.so → unknown".
func Label(l features.IndexLoad) string {
	switch l.Provider {
	case features.ProviderPackage, features.ProviderSamePackage:
		return l.Name + " → " + l.Package
	case features.ProviderFree:
		if l.Package != "" {
			return l.Name + " → " + l.Package + " (free)"
		}
		return l.Name + " → a free library"
	}
	return l.Name + " → " + l.Provider
}

// PackageRelease is one package in one release: its own version and the
// loads of its archives (the index leaves' runtimeLoads, every platform
// and variant together).
type PackageRelease struct {
	Package string
	Version string
	Loads   []features.IndexLoad
}

// Appearance says from which version of a package a load appears, over
// the releases read: what the version condition of a package file
// (lib.versionAtLeast) needs.
type Appearance struct {
	Package string             `json:"package"`
	Load    features.IndexLoad `json:"load"`
	// Since is the package's version in the first release that has it.
	Since string `json:"since"`
	// Until is the package's version in the first release after Since
	// that no longer has it ("" while every later release has it).
	Until string `json:"until,omitempty"`
	// Always: every release read has it (no condition needed).
	Always bool `json:"always"`
	// Versions are the package versions that have it, oldest first.
	Versions []string `json:"versions"`
}

// Since gives, per package and load, the versions that have it, over
// releases in any order (each package's are ordered by its own version).
func Since(releases []PackageRelease) []Appearance {
	byPkg := map[string][]PackageRelease{}
	for _, r := range releases {
		byPkg[r.Package] = append(byPkg[r.Package], r)
	}
	var out []Appearance
	for pkg, rs := range byPkg {
		versions := make([]string, len(rs))
		at := map[string]PackageRelease{}
		for i, r := range rs {
			versions[i] = r.Version
			at[r.Version] = mergeLoads(at[r.Version], r)
		}
		manifest.SortVersions(versions)
		versions = dedupe(versions)
		has := map[features.IndexLoad][]bool{}
		var order []features.IndexLoad
		for i, v := range versions {
			for _, l := range at[v].Loads {
				if has[l] == nil {
					has[l] = make([]bool, len(versions))
					order = append(order, l)
				}
				has[l][i] = true
			}
		}
		for _, l := range order {
			a := Appearance{Package: pkg, Load: l, Always: true}
			for i, v := range versions {
				switch {
				case has[l][i]:
					a.Versions = append(a.Versions, v)
					if a.Since == "" {
						a.Since = v
					}
				case a.Since != "" && a.Until == "":
					a.Until = v
					a.Always = false
				default:
					a.Always = false
				}
			}
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return Label(out[i].Load) < Label(out[j].Load)
	})
	return out
}

// SinceIndex is Since over the packages of one redist of a (merged)
// index.
func SinceIndex(index features.Index, redist string) []Appearance {
	var rs []PackageRelease
	for _, pkgs := range index[redist] {
		for name, p := range pkgs {
			r := PackageRelease{Package: name, Version: p.ReleaseInfo.Version}
			for _, variants := range p.Packages {
				for _, leaf := range variants {
					r.Loads = append(r.Loads, leaf.RuntimeLoads...)
				}
			}
			rs = append(rs, r)
		}
	}
	return Since(rs)
}

func mergeLoads(a, b PackageRelease) PackageRelease {
	seen := map[features.IndexLoad]bool{}
	var out []features.IndexLoad
	for _, l := range append(append([]features.IndexLoad(nil), a.Loads...), b.Loads...) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	b.Loads = out
	return b
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}
