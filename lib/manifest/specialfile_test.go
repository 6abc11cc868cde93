package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
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
		done := make(chan error, 1)
		go func() { _, err := manifest.ReadFile(p); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			// A hang guard: reading a FIFO with no writer blocks.
			t.Fatalf("%s: still reading after 10 s", p)
		}
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want a refusal naming it", p, err)
		}
	}
}
