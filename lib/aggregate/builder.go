package aggregate

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Attrs are the structured attributes of the aggregate derivation
// (nix/pipeline.nix, manifestFeatures). The Nix walker (nix/manifest.nix)
// is the one that lists a manifest's archives: the builder aggregates
// exactly the archives and releases given here.
type Attrs struct {
	builderattrs.Outputs
	RedistName string `json:"redistName"`
	Version    string `json:"version"`
	// Manifest is validated with the Go parser (lib/manifest.Parse:
	// duplicate keys, which Nix's fromJSON cannot see, known keys, types,
	// safe paths), never listed.
	Manifest string `json:"manifest"`
	// Releases holds the index's releaseInfo of each package of Archives.
	Releases map[string]features.ReleaseInfo `json:"releases"`
	Archives []ArchiveAttrs                  `json:"archives"`
}

// ArchiveAttrs is one archive of the aggregate derivation: the manifest's
// archive, as nix/pipeline.nix passes it, and the detect derivation's
// result file.
type ArchiveAttrs struct {
	manifest.Archive
	Features string `json:"features"`
}

// archive is the manifest archive the attributes describe.
func (in ArchiveAttrs) archive() (manifest.Archive, error) {
	a := in.Archive
	if a.Variant != manifest.NoVariant && !manifest.IsVariant(a.Variant) {
		return a, fmt.Errorf("archive %s/%s: variant %q is neither a CUDA variant nor None", in.Package, in.Platform, in.Variant)
	}
	return a, nil
}

// Build is the aggregate builder: it validates the manifest, reads the
// detections of the archives Nix passed and writes the documents of the
// manifest into the derivation's output.
func Build(a Attrs, log *slog.Logger) error {
	out, err := a.Out()
	if err != nil {
		return err
	}
	if err := a.validate(); err != nil {
		return err
	}
	entries := make([]Detected, 0, len(a.Archives))
	seen := map[string]bool{}
	for _, in := range a.Archives {
		arc, err := in.archive()
		if err != nil {
			return fmt.Errorf("manifest %s: %w", a.Manifest, err)
		}
		if seen[arc.ID()] {
			return fmt.Errorf("manifest %s: archive %s passed twice", a.Manifest, arc.ID())
		}
		seen[arc.ID()] = true
		f, err := ReadDetection(in.Features, arc.Variant)
		if err != nil {
			return fmt.Errorf("archive %s: %w", arc.ID(), err)
		}
		entries = append(entries, Detected{DetectedArchive: manifest.DetectedArchive{Archive: arc, Features: f}})
	}
	SortDetected(entries)
	log.Info("aggregating", "redist", a.RedistName, "version", a.Version, "archives", len(entries))
	return WriteDocuments(out, a.RedistName, a.Version, a.Releases, entries)
}

// validate parses the manifest with the Go parser, the one validator
// (the Nix walker only lists): a manifest it refuses fails the aggregate
// with its message, naming the manifest as the run knows it
// (<redistName>/<file name>, not the store path) and where in it.
func (a Attrs) validate() error {
	data, err := os.ReadFile(a.Manifest)
	if err != nil {
		return fmt.Errorf("read manifest: %w", err)
	}
	_, err = manifest.Parse(a.RedistName+"/"+storeFileName(a.Manifest), data)
	return err
}

// storeFileName is the file name of path without the hash a store path
// puts before it (/nix/store/<32 characters>-redistrib_1.0.json gives
// redistrib_1.0.json); any other path's base name as it is.
func storeFileName(path string) string {
	base := filepath.Base(path)
	if len(base) > 33 && base[32] == '-' && storeHash.MatchString(base[:32]) {
		return base[33:]
	}
	return base
}

// storeHash is the alphabet of a store path's hash (Nix's base 32).
var storeHash = regexp.MustCompile(`^[0-9a-df-np-sv-z]{32}$`)

// ReadDetection reads a detect result (the facts the detector recorded)
// and completes it with what the buildRedist rules derive from them for
// an archive of variant: the rules run here, per manifest, so that a
// change of them rebuilds no per-archive derivation.
func ReadDetection(path string, variant manifest.Variant) (*features.Features, error) {
	f, err := features.ReadFeatures(path)
	if err != nil {
		return nil, err
	}
	return f, Complete(f, variant)
}

// Complete adds the buildRedist rules' results to the facts of an archive
// of variant.
func Complete(f *features.Features, variant manifest.Variant) error {
	major := ""
	if variant != manifest.NoVariant {
		m, ok := manifest.VariantCudaMajor(variant)
		if !ok {
			return fmt.Errorf("variant %q is not a CUDA variant", variant)
		}
		major = m
	}
	return buildredist.Complete(f, major, false)
}

// WriteDocuments writes the four documents of one manifest into dir:
// feature_<version>.json, index.json, detail.json and buildRedist.json.
// releases holds the releaseInfo of every package of entries.
func WriteDocuments(dir, redistName, version string, releases map[string]features.ReleaseInfo, entries []Detected) error {
	ResolveLoads(entries)
	index, err := BuildIndex(redistName, version, releases, entries)
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
