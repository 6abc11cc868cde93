package facts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// versionDirsTree writes lib/1 .. lib/n, each holding one library.
func versionDirsTree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := 1; i <= n; i++ {
		dir := filepath.Join(root, "lib", fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "libx.so"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCudaVersionDirsBounded: every lib/<N> directory is one more
// simulation of the whole tree, so their number is bounded where the
// simulations run (buildredist.Complete, in the aggregate); the bound
// itself is simulated in full, and detecting the facts is never refused.
func TestCudaVersionDirsBounded(t *testing.T) {
	f := detectWithRules(t, versionDirsTree(t, buildredist.MaxCudaVersionDirs), "")
	if len(f.BuildRedistByCudaMajor) != buildredist.MaxCudaVersionDirs {
		t.Errorf("%d simulations, want %d", len(f.BuildRedistByCudaMajor), buildredist.MaxCudaVersionDirs)
	}
	n := buildredist.MaxCudaVersionDirs + 1
	g, err := facts.Detect(versionDirsTree(t, n))
	if err != nil {
		t.Fatalf("%d version directories: detecting the facts: %v", n, err)
	}
	err = buildredist.Complete(g, "", false)
	want := fmt.Sprintf("lib/ holds %d CUDA version directories (lib/1 to lib/%d)", n, n)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d version directories: %v; want an error saying %q", n, err, want)
	}
	// With a CUDA major given there is one simulation, whatever lib/ holds.
	if err := buildredist.Complete(g, "12", false); err != nil {
		t.Errorf("%d version directories, CudaMajor 12: %v", n, err)
	}
}

// detectWithRules is what the aggregate holds of a tree: its facts and
// the buildRedist rules' results for cudaMajor.
func detectWithRules(t *testing.T, root, cudaMajor string) *features.Features {
	t.Helper()
	f, err := facts.Detect(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := buildredist.Complete(f, cudaMajor, false); err != nil {
		t.Fatal(err)
	}
	return f
}
