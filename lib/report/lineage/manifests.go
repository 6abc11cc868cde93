package lineage

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// IsManifestFile says whether path names a manifest file
// (redistrib_<version>.json), which diff reads without trees.
func IsManifestFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && manifest.ManifestFile.MatchString(filepath.Base(path))
}

// ReadManifest is the release of the manifest at path: its redist is the
// name of the directory it is in (the layout <redist>/redistrib_<v>.json
// of manifests/ and download-manifests).
func ReadManifest(path string) (*Release, error) {
	m, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	version := manifest.ManifestFile.FindStringSubmatch(filepath.Base(path))[1]
	redist := filepath.Base(filepath.Dir(path))
	return FromManifest(redist, version, m), nil
}

// OtherRedists reads the releases of the redists beside redist's
// directory (root/<other>/redistrib_*.json): where a dropped package
// went, or a new one came from. A directory that holds no manifests is
// not a redist and is passed over.
func OtherRedists(root, redist string) ([]*Release, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("other redists: %w", err)
	}
	var out []*Release
	for _, e := range entries {
		if !e.IsDir() || e.Name() == redist {
			continue
		}
		found, err := manifest.FindManifests(filepath.Join(root, e.Name()), manifest.Filter{})
		if err != nil {
			return nil, fmt.Errorf("other redists: %w", err)
		}
		for _, lm := range found {
			r, err := ReadManifest(lm.Path)
			if err != nil {
				return nil, fmt.Errorf("other redists: %w", err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}
