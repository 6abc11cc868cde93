package nixpipeline

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildRedistDerivation: a manifest's buildRedist attribute, built
// by the aggregate builder (cuda-redist-aggregate print-buildredist
// --json), is the aggregate's buildRedist.json: the golden one, and the
// one in the aggregate it reads.
func TestBuildRedistDerivation(t *testing.T) {
	requireNix(t)
	got := buildSample(t, `"2.0.0".buildRedist`)
	if !strings.HasSuffix(got, "-sample-2.0.0-buildRedist.json") {
		t.Errorf("built %s, want the buildRedist derivation's output", got)
	}
	diffPaths(t, filepath.Join(repoRoot(), "tests", "golden", "sample", "2.0.0", "buildRedist.json"), got)
	diffPaths(t, filepath.Join(buildSample(t, `"2.0.0"`), "buildRedist.json"), got)
}
