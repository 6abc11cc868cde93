package aggregate

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// Attrs are the structured attributes of the aggregate derivation
// (nix/pipeline.nix, manifestFeatures).
type Attrs struct {
	builderattrs.Outputs
	RedistName string `json:"redistName"`
	Version    string `json:"version"`
	Manifest   string `json:"manifest"`
	// The selection the archives were taken with (nil: all).
	SelectedPlatforms []string       `json:"selectedPlatforms"`
	SelectedPackages  []string       `json:"selectedPackages"`
	Archives          []ArchiveAttrs `json:"archives"`
}

// ArchiveAttrs is one archive of the aggregate derivation: where it sits
// in the manifest, and the detect derivation's result file.
type ArchiveAttrs struct {
	Package      string `json:"package"`
	Platform     string `json:"platform"`
	Variant      string `json:"variant"`
	RelativePath string `json:"relativePath"`
	SHA256       string `json:"sha256"`
	Features     string `json:"features"`
}

// Build is the aggregate builder: it checks that the archives Nix passed
// are the manifest's, reads their detections and writes the documents of
// the manifest into the derivation's output.
func Build(a Attrs, log *slog.Logger) error {
	out, err := a.Out()
	if err != nil {
		return err
	}
	m, err := manifest.ReadFile(a.Manifest)
	if err != nil {
		return err
	}
	if err := sameArchives(m, a); err != nil {
		return err
	}
	entries := make([]Detected, 0, len(a.Archives))
	for _, in := range a.Archives {
		arc, ok := m.Archive(in.Package, in.Platform, in.Variant)
		if !ok || arc.SHA256 != in.SHA256 || arc.RelativePath != in.RelativePath {
			return fmt.Errorf("archive %s/%s/%s does not match manifest %s", in.Package, in.Platform, in.Variant, a.Manifest)
		}
		f, err := features.ReadFeatures(in.Features)
		if err != nil {
			return fmt.Errorf("archive %s: %w", arc.ID(), err)
		}
		entries = append(entries, Detected{Archive: arc, Features: f})
	}
	SortDetected(entries)
	log.Info("aggregating", "redist", a.RedistName, "version", a.Version, "archives", len(entries))
	return WriteDocuments(out, a.RedistName, a.Version, m, entries)
}

// sameArchives fails unless the archives Nix passed are exactly those the
// Go parser finds in the manifest (within the selection): the two sides
// must read one manifest the same way.
func sameArchives(m *manifest.Manifest, a Attrs) error {
	given := map[string]bool{}
	for _, in := range a.Archives {
		given[in.Package+"/"+in.Platform+"/"+in.Variant] = true
	}
	want := 0
	for _, arc := range m.Archives() {
		if a.SelectedPlatforms != nil && !slices.Contains(a.SelectedPlatforms, arc.Platform) ||
			a.SelectedPackages != nil && !slices.Contains(a.SelectedPackages, arc.Package) {
			continue
		}
		want++
		if !given[arc.Package+"/"+arc.Platform+"/"+arc.VariantKey()] {
			return fmt.Errorf("manifest %s: archive %s is not among the %d the Nix walker passed", a.Manifest, arc.ID(), len(a.Archives))
		}
	}
	if want != len(a.Archives) {
		return fmt.Errorf("manifest %s: the Nix walker passed %d archives, the Go parser finds %d", a.Manifest, len(a.Archives), want)
	}
	return nil
}

// WriteDocuments writes the four documents of one manifest into dir:
// feature_<version>.json, index.json, detail.json and buildRedist.json.
func WriteDocuments(dir, redistName, version string, m *manifest.Manifest, entries []Detected) error {
	index, err := BuildIndex(redistName, version, m, entries)
	if err != nil {
		return err
	}
	docs := []struct {
		name string
		v    any
	}{
		{"feature_" + version + ".json", Legacy(entries)},
		{"index.json", index},
		{"detail.json", BuildDetail(entries)},
		{"buildRedist.json", BuildRedistDecls(entries)},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range docs {
		data, err := features.Encode(d.v)
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		if err := atomicfile.Write(filepath.Join(dir, d.name), data); err != nil {
			return err
		}
	}
	return nil
}

// MergeAttrs are the structured attributes of the merged-index derivation.
type MergeAttrs struct {
	builderattrs.Outputs
	Indexes []string `json:"indexes"`
}

// MergeIndexFiles reads index.json files and returns their merge, encoded.
func MergeIndexFiles(paths []string) ([]byte, error) {
	indexes := make([]features.Index, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var idx features.Index
		if err := jsoncheck.Unmarshal(p, data, &idx); err != nil {
			return nil, err
		}
		indexes = append(indexes, idx)
	}
	return EncodeMerged(indexes...)
}
