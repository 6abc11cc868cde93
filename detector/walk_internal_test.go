package detector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
)

// TestShrunkMappedFile: a file that shrinks after it was mapped faults
// (SIGBUS) on access; that must be an error naming the file, not a crash.
// The file is truncated before mapping with its old size, which faults
// the same way, deterministically.
func TestShrunkMappedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "libbig.so")
	const size = 4 * smallFile
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, smallFile/2); err != nil {
		t.Fatal(err)
	}
	h, err := narhash.NewNarHasher()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Dir("/"); err != nil {
		t.Fatal(err)
	}
	err = consumeFile(h, walkItem{rel: "libbig.so", raw: "libbig.so", abs: p, kind: kindFile, size: size}, &node{kind: kindFile})
	if err == nil || !strings.Contains(err.Error(), "changed during the walk") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v, want the file named as changed during the walk", err)
	}
}
