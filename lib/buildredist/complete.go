package buildredist

import (
	"fmt"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// MaxCudaVersionDirs bounds the lib/<N> directories of one tree. Each is
// a buildRedist simulation of the whole tree, so without a bound a small
// archive of many tiny lib/<N> directories costs their number times its
// size (3,000 of them with 3,000 other files took 19 s); real archives
// have at most three (lib/11, lib/12, lib/13). The detector refuses such
// trees already; Complete checks again because its input is a file.
const MaxCudaVersionDirs = 8

// Complete adds to a detection what the buildRedist rules derive from its
// facts: BuildRedist, simulated with cudaMajor (the CUDA major of the
// archive's variant, "" for none), and, for an archive without a variant,
// BuildRedistByCudaMajor for each lib/<major> it ships. The detector
// (cmd/cuda-redist-detector) records the facts only, so that a change of
// these rules rebuilds the per-manifest aggregates and no detection.
func Complete(f *features.Features, cudaMajor string, globstar bool) error {
	f.BuildRedist = Analyze(f.Tree, Options{CudaMajor: cudaMajor, Globstar: globstar})
	f.BuildRedistByCudaMajor = nil
	if cudaMajor != "" {
		return nil
	}
	majors := MajorDirs(f.CudaVersionsInLib)
	if n := len(majors); n > MaxCudaVersionDirs {
		return fmt.Errorf("lib/ holds %d CUDA version directories (lib/%s to lib/%s): each is one more buildRedist simulation of the whole tree, and at most %d are simulated",
			n, majors[0], majors[n-1], MaxCudaVersionDirs)
	}
	for _, v := range majors {
		if f.BuildRedistByCudaMajor == nil {
			f.BuildRedistByCudaMajor = map[string]features.BuildRedistFacts{}
		}
		f.BuildRedistByCudaMajor[v] = Analyze(f.Tree, Options{CudaMajor: v, Globstar: globstar})
	}
	return nil
}

// MajorDirs are the versions of lib/<version> directories that buildRedist
// can swap in for lib/: it uses lib/${cudaMajorVersion}, so only whole
// majors (lib/12, not lib/12.2, which upstream's cudaVersionsInLib lists
// too) are simulated.
func MajorDirs(versions []string) []string {
	var majors []string
	for _, v := range versions {
		if !strings.Contains(v, ".") {
			majors = append(majors, v)
		}
	}
	return majors
}
