// Package lineage follows a redist's packages from one release to the
// next as a maintainer meets them: new packages, dropped ones (and the
// other redist one moved to), renames, and files, headers and sonames
// that move from one package to another (a split, or a merge), with the
// licence of each package and its changes.
//
// It decides from evidence and says which: the manifest's fields (key,
// name, licence, version) always, and where the archives were processed
// (an aggregate's detail.json, or a detection of a tree) their file lists
// and sonames. Without trees a split cannot be seen: a package that
// appears is new, and that is all the manifest says.
package lineage

import (
	"maps"
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Release is what lineage reads of one release of a redist.
type Release struct {
	Redist  string
	Version string
	// Date is the manifest's release_date ("" when unknown).
	Date     string
	Packages map[string]*Package
}

// Package is one package of a release.
type Package struct {
	Key         string
	Name        string
	Version     string
	License     string
	LicensePath string
	// Tree is the union of the files (and symlinks) of the package's
	// processed archives, relative to the archive's root; nil when none
	// was processed. Sonames are the sonames its shared libraries
	// provide.
	Tree    map[string]bool
	Sonames map[string]bool
	// Libs maps a shared library's path to its soname: a library that
	// moves and changes its path (nvvm/lib64/libnvvm.so in CUDA 12's
	// cuda_nvcc, lib/libnvvm.so.4 in CUDA 13's libnvvm) is the same
	// library when its soname is.
	Libs map[string]string
	// Text is the licence file the detector read at the top of the
	// package's first processed archive that has one; nil when unknown.
	Text *features.LicenceText
}

// HasTree says whether the package's archives were processed.
func (p *Package) HasTree() bool { return p.Tree != nil }

// FromManifest is the release a manifest describes, without trees.
func FromManifest(redist, version string, m *manifest.Manifest) *Release {
	r := &Release{Redist: redist, Version: version, Date: m.Date, Packages: map[string]*Package{}}
	for key, rel := range m.Releases {
		r.Packages[key] = &Package{Key: key, Name: rel.Name, Version: rel.Version, License: rel.License, LicensePath: rel.LicensePath}
	}
	return r
}

// FromAggregate is the release of an aggregate: the index's release
// information for every package, and the trees and sonames of the
// archives detail.json holds.
func FromAggregate(redist, version string, index features.Index, detail features.Detail) *Release {
	r := &Release{Redist: redist, Version: version, Packages: map[string]*Package{}}
	for key, ip := range index[redist][version] {
		info := ip.ReleaseInfo
		r.Packages[key] = &Package{Key: key, Name: info.Name, Version: info.Version, License: info.License, LicensePath: info.LicensePath}
	}
	for _, a := range manifest.DetailArchives(detail) {
		p := r.Packages[a.Package]
		if p == nil {
			// detail.json without the index's entry: the key alone is known.
			p = &Package{Key: a.Package}
			r.Packages[a.Package] = p
		}
		if a.Features != nil {
			p.AddFeatures(a.Features)
		}
	}
	return r
}

// AddFeatures adds one processed archive's tree and sonames to the
// package.
func (p *Package) AddFeatures(f *features.Features) {
	if p.Tree == nil {
		p.Tree, p.Sonames, p.Libs = map[string]bool{}, map[string]bool{}, map[string]string{}
	}
	for _, l := range [][]string{f.Tree.Files, f.Tree.Symlinks} {
		for _, path := range l {
			p.Tree[path] = true
		}
	}
	for _, lib := range f.Libraries {
		if lib.Kind == "shared" && lib.Soname != "" {
			p.Sonames[lib.Soname] = true
			p.Libs[lib.Path] = lib.Soname
		}
	}
	if p.Text == nil && f.Licence != nil {
		t := *f.Licence
		p.Text = &t
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
