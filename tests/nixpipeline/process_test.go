package nixpipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/internal/testarchive"
)

// process runs the binary's process-manifests over dir, fetching from dir.
func process(t *testing.T, dir string, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"process-manifests",
		"--nix-option", "substituters=",
		"--nix-option", "extra-sandbox-paths=" + dir,
		"--redist-name", "sample",
	}, extra...)
	args = append(args, "file://"+dir, dir)
	return runDetector(t, args...)
}

func TestProcessManifestsMatchesGolden(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// A stale feature file is replaced; it must not be taken for a manifest.
	if err := os.WriteFile(filepath.Join(dir, "feature_1.0.0.json"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "index.json")
	code, stdout, stderr := process(t, dir, "--index", index)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
	}
	diffPaths(t, filepath.Join(golden, "index.json"), index)
	if want := 3; len(strings.Fields(stdout)) != want {
		t.Errorf("stdout lists %q, want %d files", stdout, want)
	}
}

func TestProcessManifestsFilterAndFailure(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "demo_samples", "linux-x86_64")["sha256"] = strings.Repeat("0", 63) + "1"
	})
	code, _, stderr := process(t, dir, "--version", "1.0.0")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "1 of 6 entries failed: 1.0.0 demo_samples/linux-x86_64/None") {
		t.Errorf("stderr does not name the failed entry:\n%s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "feature_1.0.0.json"))
	if err != nil {
		t.Fatalf("the other entries' results were not written: %v", err)
	}
	if !strings.Contains(string(data), "cuda_demo_rt") || strings.Contains(string(data), "demo_samples") {
		t.Errorf("feature_1.0.0.json should hold the built entries only:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_2.0.0.json")); err == nil {
		t.Error("--version 1.0.0 also processed 2.0.0")
	}
}

func TestProcessManifestsCleanup(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// An archive no other run has seen, so that everything this run needs
	// is new to the store.
	unique := testarchive.TarGz([]testarchive.Entry{
		testarchive.F("demo_src-2.0.0-archive/src/unique.txt", fmt.Sprintf("%s %d", t.Name(), time.Now().UnixNano())),
	})
	rel := "demo_src/unique.tar.gz"
	if err := os.WriteFile(filepath.Join(dir, rel), unique, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(unique)
	rewriteManifest(t, filepath.Join(dir, "redistrib_2.0.0.json"), func(m map[string]any) {
		delete(m, "libdemo_variant")
		src := leaf(m, "demo_src", "source")
		src["relative_path"], src["sha256"] = rel, hex.EncodeToString(sum[:])
	})
	code, _, stderr := process(t, dir, "--version", "2.0.0", "--cleanup", "--log-level", "INFO")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_2.0.0.json")); err != nil {
		t.Fatalf("no result: %v", err)
	}
	if !strings.Contains(stderr, "msg=cleanup") {
		t.Fatalf("no cleanup log line:\n%s", stderr)
	}
	// Whatever the run added is gone again: the fetch, unpack and
	// detection of the new archive are not in the store any more.
	drv := mustNix(t, "nix-instantiate", "--option", "extra-sandbox-paths", dir, "-E",
		"("+pipelineExpr(t, dir, "redistrib_2.0.0.json")+").entries.demo_src.source.None.features")
	closure := strings.Fields(mustNix(t, "nix-store", "-qR", drv))
	checked := 0
	for _, d := range closure {
		if !strings.HasSuffix(d, ".drv") || !strings.Contains(d, "unique") {
			continue
		}
		out := mustNix(t, "nix-store", "-q", "--outputs", d)
		checked++
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--cleanup left %s in the store", out)
		}
	}
	if checked != 3 {
		t.Errorf("checked %d derivations of the unique archive, want 3 (fetch, unpack, detect)", checked)
	}
}
