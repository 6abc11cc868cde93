package aggregate

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
)

// Detected is one manifest entry with its detection result, and what
// the aggregate adds: its runtime loads resolved.
type Detected struct {
	manifest.DetectedArchive
	// Loads are the archive's runtime loads resolved (ResolveLoads).
	Loads []features.ResolvedLoad
}

// Legacy builds the feature_<version>.json document: package → platform →
// {"outputs": {bin, dev, doc, lib, sample, static}}. Source archives are
// left out, as upstream did. The legacy format has no variant level: for a
// v3 manifest an output counts when any variant of the platform needs it.
func Legacy(entries []Detected) map[string]map[string]map[string]features.LegacyOutputs {
	doc := map[string]map[string]map[string]features.LegacyOutputs{}
	for _, e := range entries {
		a := e.Archive
		if a.Platform == "source" {
			continue
		}
		if doc[a.Package] == nil {
			doc[a.Package] = map[string]map[string]features.LegacyOutputs{}
		}
		outs := doc[a.Package][a.Platform]["outputs"]
		if outs == nil {
			outs = features.LegacyOutputs{}
			for _, name := range features.LegacyOutputNames {
				outs[name] = false
			}
			doc[a.Package][a.Platform] = map[string]features.LegacyOutputs{"outputs": outs}
		}
		for _, name := range features.LegacyOutputNames {
			outs[name] = outs[name] || e.Features.Outputs[name]
		}
	}
	return doc
}

// BuildIndex builds the index format for one manifest: releases holds
// the releaseInfo of every package of entries (the manifest's name,
// license, license_path and version of the package).
func BuildIndex(redistName, version string, releases map[string]features.ReleaseInfo, entries []Detected) (features.Index, error) {
	pkgs := map[string]features.IndexPackage{}
	for _, e := range entries {
		a := e.Archive
		r, ok := releases[a.Package]
		if !ok {
			return nil, fmt.Errorf("entry %s: no release information for package %s (%s %s)", a.ID(), a.Package, redistName, version)
		}
		p, ok := pkgs[a.Package]
		if !ok {
			p = features.IndexPackage{
				ReleaseInfo: r,
				Packages:    map[string]map[string]features.IndexLeaf{},
			}
			pkgs[a.Package] = p
		}
		leaf := features.IndexLeaf{
			Feature: features.IndexFeature{Outputs: features.TrueOutputs(e.Features.Outputs), CudaVersionsInLib: e.Features.CudaVersionsInLib},
			NarHash: e.Features.NarHash,
			SHA256:  a.SHA256,
		}
		leaf.RuntimeLoads = runtimedeps.IndexLoads(e.Loads)
		if e.Features.BuildRedist.Outputs != nil {
			br := e.Features.BuildRedist
			leaf.BuildRedist = &br
		}
		if a.RelativePath != manifest.ConventionalPath(a.Package, a.Platform, r.Version, a.Variant) {
			leaf.RelativePath = a.RelativePath
		}
		if p.Packages[a.Platform] == nil {
			p.Packages[a.Platform] = map[string]features.IndexLeaf{}
		}
		p.Packages[a.Platform][a.Variant.String()] = leaf
	}
	return features.Index{redistName: {version: pkgs}}, nil
}

// MergeIndexes merges indexes of different manifests. The same redist and
// version may appear twice only with identical content.
func MergeIndexes(indexes ...features.Index) (features.Index, error) {
	out := features.Index{}
	for _, idx := range indexes {
		for redist, versions := range idx {
			if out[redist] == nil {
				out[redist] = map[string]map[string]features.IndexPackage{}
			}
			for version, pkgs := range versions {
				if prev, ok := out[redist][version]; ok && !reflect.DeepEqual(prev, pkgs) {
					return nil, fmt.Errorf("merge index: %s %s appears twice with different content", redist, version)
				}
				out[redist][version] = pkgs
			}
		}
	}
	return out, nil
}

// EncodeMerged merges indexes and encodes the result canonically.
func EncodeMerged(indexes ...features.Index) ([]byte, error) {
	merged, err := MergeIndexes(indexes...)
	if err != nil {
		return nil, err
	}
	return features.Encode(merged)
}

// BuildDetail keeps everything detect found, per entry.
func BuildDetail(entries []Detected) features.Detail {
	d := features.Detail{}
	for _, e := range entries {
		a := e.Archive
		if d[a.Package] == nil {
			d[a.Package] = map[string]map[string]features.DetailEntry{}
		}
		if d[a.Package][a.Platform] == nil {
			d[a.Package][a.Platform] = map[string]features.DetailEntry{}
		}
		d[a.Package][a.Platform][a.Variant.String()] = features.DetailEntry{SHA256: a.SHA256, RelativePath: a.RelativePath, Features: e.Features, RuntimeLoads: e.Loads}
	}
	return d
}

// SortDetected orders entries by package, platform and variant.
func SortDetected(entries []Detected) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Archive.ID() < entries[j].Archive.ID() })
}

// BuildRedistDecls computes the buildRedist declarations of every package
// of a manifest from its detections.
func BuildRedistDecls(entries []Detected) map[string]features.BuildRedistDecl {
	archives := make([]ArchiveFacts, len(entries))
	for i, e := range entries {
		archives[i] = ArchiveFacts{Archive: e.Archive, Facts: e.Features.BuildRedist, ByCudaMajor: e.Features.BuildRedistByCudaMajor}
	}
	decls := Declarations(archives)
	for pkg, loads := range runtimedeps.PackageLoads(resolvedArchives(entries)) {
		d, ok := decls[pkg]
		if !ok {
			continue
		}
		d.RuntimeDependencies = loads
		decls[pkg] = d
	}
	return decls
}

// EncodeLegacy sorts the entries and encodes their feature_<version>.json
// document, as the aggregate builder writes it.
func EncodeLegacy(entries []Detected) ([]byte, error) {
	SortDetected(entries)
	return features.Encode(Legacy(entries))
}
