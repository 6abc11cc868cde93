package nixdriver_test

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// TestFirstListingDiff: the first path in byte order that one listing has
// and the other has not, or has as another kind.
func TestFirstListingDiff(t *testing.T) {
	before := &features.Tree{Files: []string{"bin/a", "lib/libx.so.1"}, Symlinks: []string{"lib/libx.so"}, EmptyDirs: []string{"share"}}
	for _, tc := range []struct {
		name string
		now  *features.Tree
		want string
	}{
		{"file gone", &features.Tree{Files: []string{"lib/libx.so.1"}, Symlinks: []string{"lib/libx.so"}, EmptyDirs: []string{"share"}},
			"bin/a (recorded: file; now: absent)"},
		{"file added", &features.Tree{Files: []string{"bin/a", "bin/b", "lib/libx.so.1"}, Symlinks: []string{"lib/libx.so"}, EmptyDirs: []string{"share"}},
			"bin/b (recorded: absent; now: file)"},
		{"link became a file", &features.Tree{Files: []string{"bin/a", "lib/libx.so", "lib/libx.so.1"}, EmptyDirs: []string{"share"}},
			"lib/libx.so (recorded: symlink; now: file)"},
		{"same listing", before, "none in the listing"},
	} {
		if got := nixdriver.FirstListingDiff(before, tc.now); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := nixdriver.FirstListingDiff(nil, before); !strings.HasPrefix(got, "unknown") {
		t.Errorf("no recorded listing: %q", got)
	}
}
