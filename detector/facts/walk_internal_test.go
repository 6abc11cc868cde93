package facts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testnar"
)

// shrunkFile writes a file of size bytes and truncates it to a quarter:
// a walk that saw the old size finds a file that shrank under it.
func shrunkFile(t *testing.T, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "libbig.so")
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, int64(size/4)); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShrunkFile: a large file that shrank after the reader saw its size
// is an error naming it and how much of it could be read.
func TestShrunkFile(t *testing.T) {
	const size = 4 * smallFile
	p := shrunkFile(t, size)
	h, err := narhash.NewNarHasher()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Dir("/"); err != nil {
		t.Fatal(err)
	}
	c := &consumer{t: newTree(), h: h, buf: make([]byte, readPiece)}
	err = c.file(walkItem{rel: "libbig.so", raw: "libbig.so", abs: p, kind: kindFile, size: size}, &node{kind: kindFile}, true)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), fmt.Sprintf("%d of %d bytes", size/4, size)) {
		t.Fatalf("err = %v, want the file named with %d of %d bytes", err, size/4, size)
	}
}

// TestShrunkMappedFile: a file that shrinks after it was mapped faults
// (SIGBUS) on access; that must be an error naming the file, not a crash.
// The file is truncated before mapping with its old size, which faults
// the same way, deterministically.
func TestShrunkMappedFile(t *testing.T) {
	const size = 4 * smallFile
	p := shrunkFile(t, size)
	f, err := openFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = withMapped(f, walkItem{abs: p, size: size}, func(data []byte) error {
		if data[len(data)-1] != 0 { // the read faults
			return errors.New("a zero byte read as not zero")
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "changed during the walk") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v, want the file named as changed during the walk", err)
	}
}

// TestUsrAcrossPieces: /usr/ is found wherever it sits in a large file
// read a piece at a time, straddling two pieces included, and in the
// small files the reader reads whole; the NAR hash is go-nix's.
func TestUsrAcrossPieces(t *testing.T) {
	sizes := []int{smallFile, 3*readPiece + smallFile + 3}
	for _, size := range sizes {
		var offsets []int
		for _, seam := range []int{readPiece, 2 * readPiece, size - len(usrBytes)} {
			for d := -len(usrBytes); d <= 1; d++ {
				if o := seam + d; o >= 0 && o+len(usrBytes) <= size {
					offsets = append(offsets, o)
				}
			}
		}
		offsets = append(offsets, -1) // no /usr/ at all
		for _, off := range offsets {
			root := t.TempDir()
			data := make([]byte, size)
			if off >= 0 {
				copy(data[off:], usrBytes)
			}
			if err := os.WriteFile(filepath.Join(root, "data.bin"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			tr, sum, err := scan(root, Options{}.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tr.nodes["data.bin"].usr != usrNone, off >= 0; got != want {
				t.Errorf("size %d, /usr/ at %d: found %v", size, off, got)
			}
			if want, err := testnar.HashPath(root); err != nil || sum != want {
				t.Errorf("size %d, /usr/ at %d: NAR hash %s, go-nix %s (%v)", size, off, sum, want, err)
			}
		}
	}
}

// TestLargeFilesInspectedLikeSmall: a large file that is neither ELF nor
// a static archive is inspected from its first bytes only; that must give
// what inspecting the whole file gives, for a linker script and for other
// data named like a library, on both sides of smallFile.
func TestLargeFilesInspectedLikeSmall(t *testing.T) {
	script := []byte("/* GNU ld script */\nINPUT(-lcudart_real)\n")
	for _, size := range []int{len(script), smallFile, smallFile + 1, 3 * readPiece} {
		root := t.TempDir()
		data := append(append([]byte(nil), script...), bytes.Repeat([]byte(" "), size-len(script))...)
		files := map[string][]byte{"libscript.so": data, "libdata.so.1": bytes.Repeat([]byte{0}, size)}
		if size > linkerScriptHead {
			// A NUL byte near the end of what isLinkerScript reads: not a
			// linker script, which a walk reading less would miss.
			nul := append([]byte(nil), data...)
			nul[linkerScriptHead-1] = 0
			files["libnul.so"] = nul
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(root, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr, _, err := scan(root, Options{}.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		for name, content := range files {
			got, want := tr.nodes[name].file, inspect(name, content)
			if got == nil || want == nil || got.kind != want.kind {
				t.Errorf("size %d, %s: walk %+v, whole file %+v", size, name, got, want)
			}
		}
		if k := tr.nodes["libscript.so"].file.kind; k != libLinkerScript {
			t.Errorf("size %d: linker script read as %s", size, k)
		}
	}
}

// TestWalkCountsAsItReads: the walk holds the bounds itself, so a tree
// that grows after sizeUp measured it is still refused, at the node that
// crosses the bound and before reading it.
func TestWalkCountsAsItReads(t *testing.T) {
	root := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", i)), make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{MaxBytes: 2500, MaxEntries: 10}, "f2: limit exceeded: its 1000 bytes would take the tree past 2500 bytes of file content, 2000 counted before it"},
		{Options{MaxBytes: 1 << 20, MaxEntries: 2}, "f2: limit exceeded: the tree has more than 2 files"},
	} {
		items := make(chan walkItem, 10)
		r := &reader{items: items, free: make(chan *[]byte, readAheadBuffers), stop: make(chan struct{}),
			maxBytes: c.opts.MaxBytes, maxEntries: c.opts.MaxEntries, entries: -1}
		go func() {
			defer close(items)
			r.walk(root, "", "")
		}()
		var last walkItem
		var files int
		for it := range items {
			if it.kind == kindFile {
				files++
			}
			last = it
		}
		if last.err == nil || !strings.Contains(last.err.Error(), c.want) || files != 2 {
			t.Errorf("%+v: %d files sent, then %v; want 2 and %q", c.opts, files, last.err, c.want)
		}
	}
}
