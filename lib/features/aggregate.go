package features

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Detected is one manifest entry with its detection result.
type Detected struct {
	Archive  manifest.Archive
	Features *Features
}

// ReadFeatures loads a detection result written by `detect`.
func ReadFeatures(path string) (*Features, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Features
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("features %s: %w", path, err)
	}
	if f.Outputs == nil || f.NarHash == "" {
		return nil, fmt.Errorf("features %s: no outputs or narHash: not a detect result", path)
	}
	return &f, nil
}

// LegacyOutputs is the outputs object of a feature_<version>.json entry.
type LegacyOutputs map[string]bool

// Legacy builds the feature_<version>.json document: package → platform →
// {"outputs": {bin, dev, doc, lib, sample, static}}. Source archives are
// left out, as upstream did. The legacy format has no variant level: for a
// v3 manifest an output counts when any variant of the platform needs it.
func Legacy(entries []Detected) map[string]map[string]map[string]LegacyOutputs {
	doc := map[string]map[string]map[string]LegacyOutputs{}
	for _, e := range entries {
		a := e.Archive
		if a.Platform == "source" {
			continue
		}
		if doc[a.Package] == nil {
			doc[a.Package] = map[string]map[string]LegacyOutputs{}
		}
		outs := doc[a.Package][a.Platform]["outputs"]
		if outs == nil {
			outs = LegacyOutputs{}
			for _, name := range LegacyOutputNames {
				outs[name] = false
			}
			doc[a.Package][a.Platform] = map[string]LegacyOutputs{"outputs": outs}
		}
		for _, name := range LegacyOutputNames {
			outs[name] = outs[name] || e.Features.Outputs[name]
		}
	}
	return doc
}

// IndexLeaf is one archive in the index format.
type IndexLeaf struct {
	Feature      IndexFeature `json:"feature"`
	NarHash      string       `json:"narHash"`
	SHA256       string       `json:"sha256"`
	RelativePath string       `json:"relativePath,omitempty"`
	// BuildRedist is not in upstream's format: what buildRedist needs.
	BuildRedist *buildredist.Facts `json:"buildRedist,omitempty"`
}

// IndexFeature is the feature object of an index leaf.
type IndexFeature struct {
	Outputs           []string `json:"outputs"`
	CudaVersionsInLib []string `json:"cudaVersionsInLib,omitempty"`
}

// ReleaseInfo is the index format's description of a release.
type ReleaseInfo struct {
	License     string `json:"license"`
	LicensePath string `json:"licensePath,omitempty"`
	Name        string `json:"name"`
	Version     string `json:"version"`
}

// IndexPackage is one package of one manifest in the index format.
type IndexPackage struct {
	ReleaseInfo ReleaseInfo                     `json:"releaseInfo"`
	Packages    map[string]map[string]IndexLeaf `json:"packages"`
}

// Index is redistName → version → package → IndexPackage.
type Index map[string]map[string]map[string]IndexPackage

// TrueOutputs lists the outputs that are needed, "out" first and the rest
// in OutputNames order, as the index format writes them.
func TrueOutputs(outputs map[string]bool) []string {
	out := []string{}
	for _, name := range OutputNames {
		if outputs[name] {
			out = append(out, name)
		}
	}
	return out
}

// BuildIndex builds the index format for one manifest.
func BuildIndex(redistName, version string, m *manifest.Manifest, entries []Detected) (Index, error) {
	pkgs := map[string]IndexPackage{}
	for _, e := range entries {
		a := e.Archive
		r, ok := m.Releases[a.Package]
		if !ok {
			return nil, fmt.Errorf("entry %s: package not in manifest %s", a.ID(), m.Source)
		}
		p, ok := pkgs[a.Package]
		if !ok {
			p = IndexPackage{
				ReleaseInfo: ReleaseInfo{License: r.License, LicensePath: r.LicensePath, Name: r.Name, Version: r.Version},
				Packages:    map[string]map[string]IndexLeaf{},
			}
			pkgs[a.Package] = p
		}
		leaf := IndexLeaf{
			Feature: IndexFeature{Outputs: TrueOutputs(e.Features.Outputs), CudaVersionsInLib: e.Features.CudaVersionsInLib},
			NarHash: e.Features.NarHash,
			SHA256:  a.SHA256,
		}
		if e.Features.BuildRedist.Outputs != nil {
			br := e.Features.BuildRedist
			leaf.BuildRedist = &br
		}
		if a.RelativePath != manifest.ConventionalPath(a.Package, a.Platform, r.Version, a.Variant) {
			leaf.RelativePath = a.RelativePath
		}
		if p.Packages[a.Platform] == nil {
			p.Packages[a.Platform] = map[string]IndexLeaf{}
		}
		p.Packages[a.Platform][a.VariantKey()] = leaf
	}
	return Index{redistName: {version: pkgs}}, nil
}

// MergeIndexes merges indexes of different manifests. The same redist and
// version may appear twice only with identical content.
func MergeIndexes(indexes ...Index) (Index, error) {
	out := Index{}
	for _, idx := range indexes {
		for redist, versions := range idx {
			if out[redist] == nil {
				out[redist] = map[string]map[string]IndexPackage{}
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
func EncodeMerged(indexes ...Index) ([]byte, error) {
	merged, err := MergeIndexes(indexes...)
	if err != nil {
		return nil, err
	}
	return Encode(merged)
}

// DetailEntry is one archive in detail.json: the full detection result.
type DetailEntry struct {
	SHA256       string    `json:"sha256"`
	RelativePath string    `json:"relativePath"`
	Features     *Features `json:"features"`
}

// Detail is package → platform → variant → DetailEntry.
type Detail map[string]map[string]map[string]DetailEntry

// BuildDetail keeps everything the detector found, per entry.
func BuildDetail(entries []Detected) Detail {
	d := Detail{}
	for _, e := range entries {
		a := e.Archive
		if d[a.Package] == nil {
			d[a.Package] = map[string]map[string]DetailEntry{}
		}
		if d[a.Package][a.Platform] == nil {
			d[a.Package][a.Platform] = map[string]DetailEntry{}
		}
		d[a.Package][a.Platform][a.VariantKey()] = DetailEntry{SHA256: a.SHA256, RelativePath: a.RelativePath, Features: e.Features}
	}
	return d
}

// SortDetected orders entries by package, platform and variant.
func SortDetected(entries []Detected) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Archive.ID() < entries[j].Archive.ID() })
}

// BuildRedistDecls computes the buildRedist declarations of every package
// of a manifest from its detections.
func BuildRedistDecls(entries []Detected) map[string]buildredist.Decl {
	archives := make([]buildredist.ArchiveFacts, len(entries))
	for i, e := range entries {
		archives[i] = buildredist.ArchiveFacts{Package: e.Archive.Package, Platform: e.Archive.Platform, Variant: e.Archive.Variant,
			Facts: e.Features.BuildRedist, ByCudaMajor: e.Features.BuildRedistByCudaMajor}
	}
	return buildredist.Declarations(archives)
}
