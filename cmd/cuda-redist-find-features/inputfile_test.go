package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestSpecialSonameIndexRefused: --soname-index of a FIFO is refused by
// name instead of blocking, and one of /dev/zero too.
func TestSpecialSonameIndexRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "index.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		err := testenv.Within(t, 10*time.Second, "read "+p, func() error { return readSonameIndex(sonameindex.Default(), p) })
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want a refusal naming it", p, err)
		}
	}
}
