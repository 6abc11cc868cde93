package report

import (
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/vendored"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// VendoredLib is a vendored library of an archive (docs/vendored.md).
type VendoredLib struct {
	Name     string `json:"name"`
	Upstream string `json:"upstream"`
	Path     string `json:"path"`
	// Provider is what ships it in a free distribution (the first match
	// of the default soname index).
	Provider string `json:"provider"`
}

// defaultIndex is the embedded soname index, read once per process.
var defaultIndex = sync.OnceValue(sonameindex.Default)

// vendoredOf classifies the libraries of a release's archives with the
// default index, the release's own lib/ sonames being NVIDIA's; keyed by
// package, platform and variant.
func vendoredOf(detail features.Detail) map[manifest.Archive][]VendoredLib {
	archives := vendored.FromDetail(detail)
	nvidia := vendored.NVIDIASonames(archives)
	out := map[manifest.Archive][]VendoredLib{}
	for _, a := range archives {
		for _, v := range vendored.CheckArchive(a, nvidia, defaultIndex()).Vendored {
			k := manifest.Archive{Package: a.Package, Platform: a.Platform, Variant: a.Variant}
			out[k] = append(out[k], VendoredLib{Name: v.Name, Upstream: v.Upstream, Path: v.Path, Provider: v.Index[0].Provider})
		}
	}
	return out
}

// vendoredNames are the names of an archive's vendored libraries, once
// each (a copy may sit in two folders), in path order.
func vendoredNames(libs []VendoredLib) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range libs {
		if !seen[l.Name] {
			seen[l.Name] = true
			out = append(out, l.Name)
		}
	}
	return out
}

// archiveRow is one archive's line of a table of the release section:
// the archive and what the table lists of it.
type archiveRow[T any] struct {
	Package, Platform string
	Variant           manifest.Variant
	Items             []T
}

// archiveRows lists the archives of a release of which items gives
// anything, in package and archive order.
func archiveRows[T any](rel Release, items func(Archive) []T) []archiveRow[T] {
	var out []archiveRow[T]
	for _, p := range rel.Packages {
		for _, a := range p.Archives {
			if it := items(a); len(it) > 0 {
				out = append(out, archiveRow[T]{Package: p.Name, Platform: a.Platform, Variant: a.Variant, Items: it})
			}
		}
	}
	return out
}

// vendoredRows lists the archives of a release with vendored libraries.
func vendoredRows(rel Release) []archiveRow[VendoredLib] {
	return archiveRows(rel, func(a Archive) []VendoredLib { return a.Vendored })
}
