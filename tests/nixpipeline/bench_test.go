package nixpipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// TestBenchExpressions: scripts/bench.sh times the derivations of
// scripts/bench/one-archive.nix and evaluates scripts/bench/eval-baseline.nix;
// nothing else runs them. They must keep building, and one-archive.nix's
// detect must find what the pipeline finds (here: the NAR hash Nix records
// for its unpacked tree), or the bench measures something else.
func TestBenchExpressions(t *testing.T) {
	requireNix(t)
	archive := filepath.Join(repoRoot(), "sample/cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	args := []string{"nix-build", "--no-out-link", "--option", "extra-sandbox-paths", filepath.Dir(archive),
		"scripts/bench/one-archive.nix", "--arg", "detectorProgram", detectorBinary(t),
		"--argstr", "url", "file://" + archive, "--argstr", "sha256", hex.EncodeToString(sum[:]),
		"--argstr", "name", filepath.Base(archive), "--argstr", "salt", "crfftest-"}
	for _, attr := range []string{"trivial", "src"} {
		mustNix(t, append(args, "-A", attr)...)
	}
	unpacked := mustNix(t, append(args, "-A", "unpacked")...)
	f, err := features.ReadFeatures(mustNix(t, append(args, "-A", "features")...))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustNix(t, "nix", "hash", "path", unpacked); f.NarHash != want {
		t.Errorf("one-archive.nix detect: narHash %s, nix hash path %s", f.NarHash, want)
	}
	drv := mustNix(t, "nix-instantiate", "--eval", "scripts/bench/eval-baseline.nix",
		"--arg", "detectorProgram", detectorBinary(t), "--arg", "aggregateProgram", aggregateBinary(t), "-A", "drvPath")
	if !strings.HasSuffix(drv, `-index.drv"`) {
		t.Errorf("eval-baseline.nix: drvPath %s", drv)
	}
}
