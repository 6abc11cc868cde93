package narhash_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testnar"
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
		h.FileFrom("/data", false, 4, bytes.NewReader([]byte("data")), make([]byte, 3), nil),
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
	want, err := testnar.HashPath(root)
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

// pieceSize is the piece (or buffer) size of the tests below; lengths
// around it and the 8-byte padding are where pieces can go wrong.
const pieceSize = 16

// checkOneFileTree hashes a tree of one file, /f, holding the first size
// bytes of a pattern: add adds the file to h its own way and must visit
// every byte once, in order, in pieces of at most pieceSize bytes. The
// hash must be go-nix's DumpPath's of the same tree.
func checkOneFileTree(t *testing.T, name string, size int, add func(h *narhash.NarHasher, content []byte, visit func(piece []byte)) error) {
	t.Helper()
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
	var visited []byte
	err = add(h, content, func(piece []byte) {
		if len(piece) == 0 || len(piece) > pieceSize {
			t.Errorf("%s, size %d: visited a piece of %d bytes", name, size, len(piece))
		}
		visited = append(visited, piece...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(visited, content) {
		t.Errorf("%s, size %d: visited %q", name, size, visited)
	}
	got, err := h.Sum()
	if err != nil {
		t.Fatal(err)
	}
	if want, err := testnar.HashPath(root); err != nil || got != want {
		t.Errorf("%s, size %d: %s, DumpPath %s (%v)", name, size, got, want, err)
	}
}

// TestFileBytesVisitMatchesDumpPath: hashing content in memory, visited
// in pieces.
func TestFileBytesVisitMatchesDumpPath(t *testing.T) {
	for size := 0; size <= 3*pieceSize+9; size++ {
		checkOneFileTree(t, "FileBytesVisit", size, func(h *narhash.NarHasher, content []byte, visit func([]byte)) error {
			return h.FileBytesVisit("/f", false, content, pieceSize, func(start, end int) { visit(content[start:end]) })
		})
	}
}

// TestFileFromMatchesDumpPath: reading a file a piece at a time, from a
// reader that returns less than asked (iotest.HalfReader).
func TestFileFromMatchesDumpPath(t *testing.T) {
	for size := 0; size <= 3*pieceSize+9; size++ {
		checkOneFileTree(t, "FileFrom", size, func(h *narhash.NarHasher, content []byte, visit func([]byte)) error {
			return h.FileFrom("/f", false, int64(size), iotest.HalfReader(bytes.NewReader(content)), make([]byte, pieceSize), visit)
		})
	}
}

// TestFileFromShortFile: a file that holds fewer bytes than its size said
// (it shrank during the walk) is an error naming it and the count.
func TestFileFromShortFile(t *testing.T) {
	h, err := narhash.NewNarHasher()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Dir("/"); err != nil {
		t.Fatal(err)
	}
	err = h.FileFrom("/libx.so", false, 10, bytes.NewReader([]byte("12345")), make([]byte, 4), nil)
	if err == nil || !strings.Contains(err.Error(), "/libx.so: 5 of 10 bytes") {
		t.Fatalf("got %v, want an error naming the file and 5 of 10 bytes", err)
	}
}

// TestNewKnown: a hasher told the hash returns it in SRI form whatever
// encoding Nix gave it in, still checks the order of the nodes and visits
// content, and refuses what is not a SHA-256 hash. The three encodings of
// one hash are `nix hash to-sri` and `nix hash to-base16` of the first.
func TestNewKnown(t *testing.T) {
	const sri = "sha256-ZJv0r2iQ2Iyr1QAbYhBkd5SV2DoY5dwWiyLhD+fyTWQ="
	for _, given := range []string{
		"sha256:0r2dybkhzq92icbdrr8q7bc9b53pch8646q0snmqrn4hd2pz96v4",
		sri,
		"sha256:649bf4af6890d88cabd5001b621064779495d83a18e5dc168b22e10fe7f24d64",
	} {
		h, err := narhash.NewKnown(given)
		if err != nil {
			t.Fatalf("%s: %v", given, err)
		}
		if err := h.Dir("/"); err != nil {
			t.Fatal(err)
		}
		var seen []byte
		if err := h.FileFrom("/b", false, 3, strings.NewReader("abc"), make([]byte, 2), func(p []byte) { seen = append(seen, p...) }); err != nil {
			t.Fatal(err)
		}
		if string(seen) != "abc" {
			t.Errorf("%s: visited %q", given, seen)
		}
		if err := h.Symlink("/a", "b"); err == nil {
			t.Errorf("%s: /a after /b was accepted", given)
		}
		if got, err := h.Sum(); err != nil || got != sri {
			t.Errorf("%s: Sum %s (%v), want %s", given, got, err, sri)
		}
	}
	for _, bad := range []string{"", "sha1:0000000000000000000000000000000000000000", "sha256-tooshort", "md5-1B2M2Y8AsgTpgAmY7PhCfg=="} {
		if _, err := narhash.NewKnown(bad); err == nil {
			t.Errorf("NewKnown(%q) was accepted", bad)
		}
	}
}
