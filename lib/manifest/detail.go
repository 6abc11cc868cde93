package manifest

import (
	"maps"
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// DetailArchive is one archive of a detail.json, its keys read back into
// an Archive (the variant key "None" is NoVariant), and its detection.
type DetailArchive struct {
	Archive
	// Features is the entry's detection; nil when the file has none.
	Features *features.Features
}

// DetailArchives lists the archives of a detail.json by package, platform
// and variant key, each level in the order of its keys. It is the one
// place the file's keys become Archives.
func DetailArchives(d features.Detail) []DetailArchive {
	var out []DetailArchive
	for _, pkg := range slices.Sorted(maps.Keys(d)) {
		for _, platform := range slices.Sorted(maps.Keys(d[pkg])) {
			for _, key := range slices.Sorted(maps.Keys(d[pkg][platform])) {
				e := d[pkg][platform][key]
				a := Archive{Package: pkg, Platform: platform, Variant: ParseVariantKey(key), RelativePath: e.RelativePath, SHA256: e.SHA256}
				out = append(out, DetailArchive{Archive: a, Features: e.Features})
			}
		}
	}
	return out
}
