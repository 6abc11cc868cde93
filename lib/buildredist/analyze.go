package buildredist

import (
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// maxExamples bounds the paths a result lists (checkCudaFhsRefs itself
// shows the first five matches).
const maxExamples = 5

// Analyze computes the features.BuildRedistFacts of a tree.
func Analyze(t features.Tree, opts Options) features.BuildRedistFacts {
	entries, usedMajor := Prepare(t, opts)
	outputs := Install(entries, features.BuildRedistOutputs, opts.Globstar)
	f := features.BuildRedistFacts{Outputs: []string{"out"}, StubsDirs: []string{}, FHSReferences: features.FHS{Paths: []string{}}, CudaMajorDir: usedMajor, Globstar: opts.Globstar}
	for _, o := range features.BuildRedistOutputs[1:] {
		if len(outputs[o]) > 0 {
			f.Outputs = append(f.Outputs, o)
		}
	}
	for _, o := range features.BuildRedistOutputs {
		for _, e := range outputs[o] {
			if dir := e.StubsDir(); dir != "" {
				f.HasStubs = true
				if len(f.StubsDirs) < maxExamples && !slices.Contains(f.StubsDirs, dir) {
					f.StubsDirs = append(f.StubsDirs, dir)
				}
			}
		}
	}
	for _, e := range entries {
		if e.FHSReference() {
			f.FHSReferences.Count++
			if len(f.FHSReferences.Paths) < maxExamples {
				f.FHSReferences.Paths = append(f.FHSReferences.Paths, e.Path)
			}
		}
	}
	return f
}

// StubsDir returns the path of the first directory named stubs on the
// entry's path ("" when none): what `find -type d -name stubs` reports.
func (e Entry) StubsDir() string {
	parts := strings.Split(e.Path, "/")
	last := len(parts) - 1 // a file's own name is not a directory
	if e.Kind == KindEmptyDir {
		last = len(parts)
	}
	for i := 0; i < last; i++ {
		if parts[i] == "stubs" {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}
