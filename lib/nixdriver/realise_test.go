package nixdriver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRealiseWithoutRootsDoesNotWarn: a Realise without RootDir (a
// caller that reads the outputs at once) does not pass on Nix's --add-root warning, and one
// with RootDir roots what it realised.
func TestRealiseWithoutRootsDoesNotWarn(t *testing.T) {
	if _, err := exec.LookPath("nix-store"); err != nil {
		testenv.Unavailable(t, "Nix is not installed: no nix-store (apt-get install nix-bin)", "CRFF_REQUIRE_NIX")
	}
	file := filepath.Join(t.TempDir(), "realise-test.txt")
	if err := os.WriteFile(file, []byte(t.Name()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	r := &Runner{Stderr: &stderr}
	paths, err := r.AddFixed(context.Background(), []string{file})
	if err != nil || len(paths) != 1 {
		t.Fatalf("AddFixed: %v %v", paths, err)
	}
	if err := r.Realise(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "add-root") {
		t.Errorf("Realise without RootDir: %s", stderr.String())
	}
	r.RootDir = t.TempDir()
	if err := r.Realise(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(r.RootDir, "batch-000")); err != nil || target != paths[0] {
		t.Errorf("root: %q, %v; want a link to %s", target, err, paths[0])
	}
	if strings.Contains(stderr.String(), "add-root") {
		t.Errorf("Realise: %s", stderr.String())
	}
	Delete(context.Background(), paths)
}
