package manifest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// TestDetailArchives: a detail.json's keys come back as Archives in the
// file's key order, "None" as NoVariant, with the entry's path, hash and
// detection.
func TestDetailArchives(t *testing.T) {
	f := &features.Features{NarHash: "sha256-x"}
	d := features.Detail{
		"libb": {"linux-x86_64": {"None": {SHA256: "b", RelativePath: "libb/b.tar.xz", Features: f}}},
		"liba": {
			"linux-x86_64": {"cuda12": {SHA256: "a12"}, "None": {SHA256: "a"}, "cuda11": {SHA256: "a11"}},
			"linux-sbsa":   {"cuda13.1": {SHA256: "s"}},
		},
	}
	want := []manifest.DetectedArchive{
		{Archive: manifest.Archive{Package: "liba", Platform: "linux-sbsa", Variant: "cuda13.1", SHA256: "s"}},
		{Archive: manifest.Archive{Package: "liba", Platform: "linux-x86_64", Variant: manifest.NoVariant, SHA256: "a"}},
		{Archive: manifest.Archive{Package: "liba", Platform: "linux-x86_64", Variant: "cuda11", SHA256: "a11"}},
		{Archive: manifest.Archive{Package: "liba", Platform: "linux-x86_64", Variant: "cuda12", SHA256: "a12"}},
		{Archive: manifest.Archive{Package: "libb", Platform: "linux-x86_64", RelativePath: "libb/b.tar.xz", SHA256: "b"}, Features: f},
	}
	if diff := cmp.Diff(want, manifest.DetailArchives(d)); diff != "" {
		t.Errorf("DetailArchives (-want +got):\n%s", diff)
	}
}
