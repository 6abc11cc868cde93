package features

import (
	"fmt"
	"os"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// ReadFeatures loads a detection result written by `detect`.
func ReadFeatures(path string) (*Features, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeFeatures(path, data)
}

// DecodeFeatures decodes a detection result read from path (named in
// errors) by other means, e.g. from a remote store.
func DecodeFeatures(path string, data []byte) (*Features, error) {
	var f Features
	if err := jsoncheck.Unmarshal("features "+path, data, &f); err != nil {
		return nil, err
	}
	if f.Outputs == nil || f.NarHash == "" {
		return nil, fmt.Errorf("features %s: no outputs or narHash: not a detect result", path)
	}
	return &f, nil
}

// LegacyOutputs is the outputs object of a feature_<version>.json entry.
type LegacyOutputs map[string]bool

// IndexLeaf is one archive in the index format.
type IndexLeaf struct {
	Feature      IndexFeature `json:"feature"`
	NarHash      string       `json:"narHash"`
	SHA256       string       `json:"sha256"`
	RelativePath string       `json:"relativePath,omitempty"`
	// BuildRedist is not in upstream's format: what buildRedist needs.
	BuildRedist *BuildRedistFacts `json:"buildRedist,omitempty"`
	// RuntimeLoads are what the archive's libraries load at run time,
	// each name and provider once (not in upstream's format either):
	// across the releases of a merged index, from which version of a
	// package a load appears (lib/runtimedeps.Since).
	RuntimeLoads []IndexLoad `json:"runtimeLoads,omitempty"`
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

// DetailEntry is one archive in detail.json: the full detection result.
type DetailEntry struct {
	SHA256       string    `json:"sha256"`
	RelativePath string    `json:"relativePath"`
	Features     *Features `json:"features"`
	// RuntimeLoads are the loads of the archive's libraries resolved to
	// their providers (lib/runtimedeps); absent when none.
	RuntimeLoads []ResolvedLoad `json:"runtimeLoads,omitempty"`
}

// Detail is package → platform → variant → DetailEntry.
type Detail map[string]map[string]map[string]DetailEntry
