package narhash_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func TestSRI(t *testing.T) {
	sum := sha256.Sum256([]byte("hello"))
	got, err := narhash.SRI(sum[:])
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="; got != want {
		t.Errorf("SRI = %s, want %s", got, want)
	}
	if _, err := narhash.SRI([]byte{1, 2, 3}); err == nil {
		t.Error("SRI of a 3-byte digest succeeded")
	}
}

// TestNarHasherMatchesDumpPath feeds a tree by hand and compares with
// go-nix's own walk of the same tree, and with Nix where it is installed.
func TestNarHasherMatchesDumpPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "data"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("data", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	h, err := narhash.NewNarHasher()
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		h.Dir("/"),
		h.Dir("/bin"),
		h.FileBytes("/bin/tool", true, []byte("#!/bin/sh\n")),
		h.File("/data", false, 4, bytes.NewReader([]byte("data"))),
		h.Symlink("/link", "data"),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, err := h.Sum()
	if err != nil {
		t.Fatal(err)
	}
	want, err := narhash.HashPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("NarHasher %s, DumpPath %s", got, want)
	}
	if nix, err := exec.LookPath("nix"); err == nil {
		out, err := exec.Command(nix, "--extra-experimental-features", "nix-command", "hash", "path", root).Output()
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(out)) != got {
			t.Errorf("NarHasher %s, nix hash path %s", got, out)
		}
	} else {
		testenv.NotChecked(t, "nix is not installed (apt-get install nix-bin): nix hash path not compared", "CRFF_REQUIRE_NIX")
	}
}

func TestNarHasherRejectsDisorder(t *testing.T) {
	h, err := narhash.NewNarHasher()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Dir("/"); err != nil {
		t.Fatal(err)
	}
	if err := h.FileBytes("/b", false, nil); err != nil {
		t.Fatal(err)
	}
	err = h.FileBytes("/a", false, nil)
	if err == nil {
		_, err = h.Sum()
	}
	if err == nil {
		t.Error("entries out of NAR order were accepted")
	}
}

// TestFileBytesVisitMatchesFileBytes: hashing in visited pieces gives the
// NAR hash of go-nix's DumpPath for every length around the piece size
// and the 8-byte padding, and visits each byte once, in order.
func TestFileBytesVisitMatchesFileBytes(t *testing.T) {
	const chunk = 16
	for size := 0; size <= 3*chunk+9; size++ {
		content := bytes.Repeat([]byte("0123456789abcdefg"), 4)[:size]
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "f"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := narhash.NewNarHasher()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Dir("/"); err != nil {
			t.Fatal(err)
		}
		next := 0
		err = h.FileBytesVisit("/f", false, content, chunk, func(start, end int) {
			if start != next || end <= start || end-start > chunk {
				t.Errorf("size %d: visited [%d, %d) after %d", size, start, end, next)
			}
			next = end
		})
		if err != nil {
			t.Fatal(err)
		}
		if next != size {
			t.Errorf("size %d: visited up to %d", size, next)
		}
		got, err := h.Sum()
		if err != nil {
			t.Fatal(err)
		}
		if want, err := narhash.HashPath(root); err != nil || got != want {
			t.Errorf("size %d: FileBytesVisit %s, DumpPath %s (%v)", size, got, want, err)
		}
	}
}
