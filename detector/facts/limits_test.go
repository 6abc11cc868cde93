package facts_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
)

// TestDefaultBoundsAreUnpacks: every tree unpack writes with its defaults
// is within detect's.
func TestDefaultBoundsAreUnpacks(t *testing.T) {
	if facts.DefaultMaxBytes != unpack.DefaultMaxBytes || facts.DefaultMaxEntries != unpack.DefaultMaxEntries {
		t.Errorf("detect bounds %d bytes, %d entries; unpack %d, %d", facts.DefaultMaxBytes, facts.DefaultMaxEntries, unpack.DefaultMaxBytes, unpack.DefaultMaxEntries)
	}
}

// linkTree writes one file of size bytes and links hard links to it: a
// tree that costs size bytes of disk and (links+1)*size of NAR.
func linkTree(t *testing.T, size, links int) string {
	root := t.TempDir()
	big := filepath.Join(root, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte{'x'}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range links {
		if err := os.Link(big, filepath.Join(root, fmt.Sprintf("l%04d", i))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestHardLinkTreeBounded: a tree of hard links to one file that did not
// come through unpack is refused once its NAR content passes MaxBytes,
// whether detect hashes the tree or Nix told it the hash, and before it
// reads the file that crosses the bound.
func TestHardLinkTreeBounded(t *testing.T) {
	root := linkTree(t, 1<<20, 2000)
	for _, narHash := range []string{"", "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="} {
		_, err := facts.DetectWith(root, facts.Options{MaxBytes: 1 << 30, NarHash: narHash})
		if !errors.Is(err, facts.ErrLimit) || !strings.Contains(err.Error(), "would take the tree past 1073741824 bytes of file content, 1073741824 counted before it") {
			t.Errorf("NarHash %q: %v, want a refusal at exactly 1 GiB", narHash, err)
		}
	}
	// Below the bound the tree is detected, every link counted.
	if _, err := facts.DetectWith(root, facts.Options{MaxBytes: 2001 << 20}); err != nil {
		t.Errorf("2001 MiB allowed: %v", err)
	}
}

// TestHugeSparseFileRefusedUnread: a 1 TiB sparse file (no disk, endless
// reading) is refused by the default bound from its size alone.
func TestHugeSparseFileRefusedUnread(t *testing.T) {
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "huge"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = facts.Detect(root)
	if !errors.Is(err, facts.ErrLimit) || !strings.Contains(err.Error(), "huge: limit exceeded: its 1099511627776 bytes") || !strings.Contains(err.Error(), ", 0 counted before it") {
		t.Errorf("Detect of a 1 TiB file: %v", err)
	}
}

func TestMaxEntries(t *testing.T) {
	root := t.TempDir()
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 50 files make 50 (the root counts not, as in unpack); f050 is one too many.
	_, err := facts.DetectWith(root, facts.Options{MaxEntries: 50})
	if !errors.Is(err, facts.ErrLimit) || !strings.Contains(err.Error(), "f050: limit exceeded: the tree has more than 50 files") {
		t.Errorf("100 files, 50 allowed: %v", err)
	}
	if _, err := facts.DetectWith(root, facts.Options{MaxEntries: 100}); err != nil {
		t.Errorf("100 allowed: %v", err)
	}
}
