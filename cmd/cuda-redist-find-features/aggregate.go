package main

import (
	"fmt"
	flag "github.com/spf13/pflag"
	"os"
	"path/filepath"
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// aggregateAttrs are the structured attributes of the aggregate derivation
// (nix/pipeline.nix, manifestFeatures).
type aggregateAttrs struct {
	builderattrs.Outputs
	RedistName string `json:"redistName"`
	Version    string `json:"version"`
	Manifest   string `json:"manifest"`
	// The selection the archives were taken with (nil: all).
	SelectedPlatforms []string `json:"selectedPlatforms"`
	SelectedPackages  []string `json:"selectedPackages"`
	Archives          []struct {
		Package      string `json:"package"`
		Platform     string `json:"platform"`
		Variant      string `json:"variant"`
		RelativePath string `json:"relativePath"`
		SHA256       string `json:"sha256"`
		Features     string `json:"features"`
	} `json:"archives"`
}

func aggregateCommand() command {
	return command{
		name:    "aggregate",
		args:    "",
		summary: "Nix builder: merge a manifest's detection results into feature_<version>.json, index.json and detail.json.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
			return func(args []string) error {
				if len(args) != 0 {
					return usageErrorf("aggregate takes no arguments")
				}
				var a aggregateAttrs
				if _, err := builderattrs.Load(*attrsFile, &a); err != nil {
					return err
				}
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
				var entries []features.Detected
				for _, in := range a.Archives {
					arc, ok := m.Archive(in.Package, in.Platform, in.Variant)
					if !ok || arc.SHA256 != in.SHA256 || arc.RelativePath != in.RelativePath {
						return fmt.Errorf("archive %s/%s/%s does not match manifest %s", in.Package, in.Platform, in.Variant, a.Manifest)
					}
					f, err := features.ReadFeatures(in.Features)
					if err != nil {
						return fmt.Errorf("archive %s: %w", arc.ID(), err)
					}
					entries = append(entries, features.Detected{Archive: arc, Features: f})
				}
				features.SortDetected(entries)
				e.log.Info("aggregating", "redist", a.RedistName, "version", a.Version, "archives", len(entries))
				return writeAggregate(out, a.RedistName, a.Version, m, entries)
			}
		},
	}
}

// sameArchives fails unless the archives Nix passed are exactly those the
// Go parser finds in the manifest (within the selection): the two sides
// must read one manifest the same way.
func sameArchives(m *manifest.Manifest, a aggregateAttrs) error {
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

// writeAggregate writes the three documents of one manifest into dir.
func writeAggregate(dir, redistName, version string, m *manifest.Manifest, entries []features.Detected) error {
	index, err := features.BuildIndex(redistName, version, m, entries)
	if err != nil {
		return err
	}
	docs := []struct {
		name string
		v    any
	}{
		{"feature_" + version + ".json", features.Legacy(entries)},
		{"index.json", index},
		{"detail.json", features.BuildDetail(entries)},
		{"buildRedist.json", features.BuildRedistDecls(entries)},
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

type mergeIndexAttrs struct {
	builderattrs.Outputs
	Indexes []string `json:"indexes"`
}

func mergeIndexCommand() command {
	return command{
		name:    "merge-index",
		args:    "[INDEX.json...]",
		summary: "Merge index.json files of several manifests (as a Nix builder: from structured attributes).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json when no files are given)")
			out := fs.String("out", "", "write the merged index here instead of stdout")
			return func(args []string) error {
				paths, dest := args, *out
				if len(args) == 0 {
					var a mergeIndexAttrs
					if _, err := builderattrs.Load(*attrsFile, &a); err != nil {
						return err
					}
					o, err := a.Out()
					if err != nil {
						return err
					}
					paths, dest = a.Indexes, o
				}
				var indexes []features.Index
				for _, p := range paths {
					var idx features.Index
					if err := readJSON(p, &idx); err != nil {
						return err
					}
					indexes = append(indexes, idx)
				}
				data, err := features.EncodeMerged(indexes...)
				if err != nil {
					return err
				}
				return writeResult(e, dest, data)
			}
		},
	}
}
