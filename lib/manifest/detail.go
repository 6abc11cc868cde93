package manifest

import (
	"maps"
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// DetectedArchive is an archive with its detection: the one type every
// stage after detect passes around (the aggregate builder's entries, the
// runtime-load resolver's and the vendored-library check's archives, a
// detail.json's entries read back).
type DetectedArchive struct {
	Archive
	// Features is the archive's detection; nil when there is none (a
	// detail.json entry without it).
	Features *features.Features
}

// DetailArchives lists the archives of a detail.json by package, platform
// and variant key, each level in the order of its keys (the variant key
// "None" read back as NoVariant). It is the one place the file's keys
// become Archives.
func DetailArchives(d features.Detail) []DetectedArchive {
	var out []DetectedArchive
	for _, pkg := range slices.Sorted(maps.Keys(d)) {
		for _, platform := range slices.Sorted(maps.Keys(d[pkg])) {
			for _, key := range slices.Sorted(maps.Keys(d[pkg][platform])) {
				e := d[pkg][platform][key]
				a := Archive{Package: pkg, Platform: platform, Variant: ParseVariantKey(key), RelativePath: e.RelativePath, SHA256: e.SHA256}
				out = append(out, DetectedArchive{Archive: a, Features: e.Features})
			}
		}
	}
	return out
}
