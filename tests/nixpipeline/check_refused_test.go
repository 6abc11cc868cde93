package nixpipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestCheckNixpkgsRefusedManifestAlone: a manifest the parser refuses is
// one FAILED line naming it, the other manifests are still fetched and
// checked, and the exit code says the check is incomplete (3). A package
// file declaring "sample" (buildRedist keeps "samples") is a warning,
// printed even with --hints=false, that does not fail the check.
func TestCheckNixpkgsRefusedManifestAlone(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	bad := filepath.Join(sample, "redistrib_3.0.0.json")
	if err := os.WriteFile(bad, []byte(`{"p": {"version": "1", "linux-riscv64": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs := withFiles(goodPackages, nil)
	pkgs["demo_src.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "demo_src"; outputs = [ "out" "include" "sample" ]; }
`
	code, lines, stderr := checkNixpkgs(t, packagesDir(t, pkgs), sample, "--hints=false")
	want := []string{
		"FAILED " + bad + ": manifest not read, its archives not checked: manifest " + bad + `: package p: unknown key "linux-riscv64" (not a known platform or release field)`,
		`WARN  demo_src.nix: declares output "sample", which buildRedist drops without a word (it keeps only out doc samples python bin dev include lib static stubs); "samples" is meant?`,
	}
	if code != 3 || !cmp.Equal(want, lines) {
		t.Fatalf("exit %d (want 3), lines (-want +got):\n%s\nstderr:\n%s", code, cmp.Diff(want, lines), stderr)
	}
	// The good manifests were fetched and detected: their archives' drvs built.
	if !strings.Contains(stderr, "1 manifest(s) could not be read: the check is incomplete") {
		t.Errorf("stderr lacks the outcome:\n%s", stderr)
	}
}

// TestCheckEvalOnlyDriftManifests: the real manifests that did not
// evaluate before their drift was handled (cuda_compat's cuda13.1
// variants, windows-arm64, cuDNN 9.27's archive beside a variant) go
// through check-nixpkgs --eval-only: no manifest is refused, and the real
// package shapes evaluate for every platform and CUDA version they bring.
func TestCheckEvalOnlyDriftManifests(t *testing.T) {
	requireNix(t)
	src := testenv.NixpkgsManifests(t)
	dir := t.TempDir()
	for _, rel := range []string{
		"cuda/redistrib_13.1.1.json", "cuda/redistrib_13.2.2.json", "cuda/redistrib_13.3.1.json", "cuda/redistrib_13.4.2.json",
		"cudnn/redistrib_9.27.0.json",
	} {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noArchives := filepath.Join(t.TempDir(), "no-archives")
	code, lines, stderr := runCheck(t, noArchives, "--eval-only", "--hints=false", "--log-level", "INFO", packagesDir(t, withFiles(realShapes, nil)),
		filepath.Join(dir, "cuda"), filepath.Join(dir, "cudnn"))
	for _, l := range lines {
		if strings.Contains(l, "manifest not read") {
			t.Errorf("refused: %s", l)
		}
	}
	if code == 3 || strings.Contains(stderr, "could not be read") {
		t.Errorf("exit %d, a manifest refused:\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	if !strings.Contains(stderr, "cases=") {
		t.Errorf("no evaluation logged:\n%s", stderr)
	}
	t.Logf("exit %d; %d lines:\n%s\n%s", code, len(lines), strings.Join(lines, "\n"), stderr)
}
