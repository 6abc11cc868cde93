package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestSpecialManifestRefused: a manifest that is a FIFO or a link to
// /dev/zero is refused by name, at once (it blocked, or filled memory).
func TestSpecialManifestRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "redistrib_1.0.0.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "redistrib_2.0.0.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		err := testenv.Within(t, 10*time.Second, "read "+p, func() error { _, err := manifest.ReadFile(p); return err })
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want a refusal naming it", p, err)
		}
	}
}
