package detect_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/stage/detect"
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
// simulation of the whole tree, so their number is bounded; the bound
// itself is simulated in full.
func TestCudaVersionDirsBounded(t *testing.T) {
	f, err := detect.Detect(versionDirsTree(t, detect.MaxCudaVersionDirs))
	if err != nil {
		t.Fatalf("%d version directories: %v", detect.MaxCudaVersionDirs, err)
	}
	if len(f.BuildRedistByCudaMajor) != detect.MaxCudaVersionDirs {
		t.Errorf("%d simulations, want %d", len(f.BuildRedistByCudaMajor), detect.MaxCudaVersionDirs)
	}
	n := detect.MaxCudaVersionDirs + 1
	_, err = detect.Detect(versionDirsTree(t, n))
	want := fmt.Sprintf("lib/ holds %d CUDA version directories (lib/1 to lib/%d)", n, n)
	if !errors.Is(err, detect.ErrLimit) || !strings.Contains(err.Error(), want) {
		t.Errorf("%d version directories: %v; want ErrLimit saying %q", n, err, want)
	}
	// With a CUDA major given there is one simulation, whatever lib/ holds.
	if _, err := detect.DetectWith(versionDirsTree(t, n), detect.Options{CudaMajor: "12"}); err != nil {
		t.Errorf("%d version directories, CudaMajor 12: %v", n, err)
	}
}
