package realcuda

import (
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// TestCoverageCUDA13 holds lib/check/coverage against NVIDIA's own support
// statement for CUDA 13.0 (release notes: Maxwell, Pascal and Volta are
// no longer supported; Turing, 7.5, is the oldest GPU): on the real CUDA
// 13 wheels, every library with device code runs (SASS or PTX) on each
// supported desktop and data-center GPU, whatever suffix the
// cudaCapabilities entry carries, and on none of the dropped ones.
func TestCoverageCUDA13(t *testing.T) {
	root, _ := real13(t)
	f, err := facts.Detect(filepath.Join(root, "nvidia", "cu13"))
	if err != nil {
		t.Fatal(err)
	}
	supported := "7.5,8.0,8.6,8.9,9.0,9.0a,10.0,10.0a,10.0f,10.3,10.3f,12.0,12.0a,12.0f,12.1,12.1f"
	dropped := "5.0,5.2,6.0,6.1,7.0"
	caps, err := coverage.ParseList(supported + "," + dropped)
	if err != nil {
		t.Fatal(err)
	}
	isDropped := map[string]bool{}
	dl, _ := coverage.ParseList(dropped)
	for _, c := range dl {
		isDropped[c.Name] = true
	}
	a, _, err := coverage.OfArchive(manifest.Archive{Package: "cu13", Platform: "linux-x86_64"}, f, caps)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Libraries) < 5 {
		t.Fatalf("only %d libraries with device code in the CUDA 13 wheels", len(a.Libraries))
	}
	for _, l := range a.Libraries {
		for _, c := range caps {
			got := l.Coverage[c.Name].Support
			if isDropped[c.Name] != (got == coverage.None) {
				t.Errorf("%s on %s: %s (targets %v); CUDA 13 supports it: %v", l.Path, c.Name, got, l.Coverage[c.Name].Targets, !isDropped[c.Name])
			}
		}
	}
	t.Logf("%d libraries with device code, %d capabilities each", len(a.Libraries), len(caps))
}
