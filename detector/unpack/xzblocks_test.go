package unpack

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// bigEntries are files of incompressible-ish content spanning many blocks.
func bigEntries() []testarchive.Entry {
	var es []testarchive.Entry
	for i := 0; i < 8; i++ {
		var b bytes.Buffer
		for j := 0; b.Len() < 100_000; j++ {
			fmt.Fprintf(&b, "file %d line %d %x\n", i, j, j*7919+i)
		}
		es = append(es, testarchive.B(fmt.Sprintf("top/dir%d/file%d", i%3, i), b.Bytes()))
	}
	return es
}

func TestXZBlocksIndex(t *testing.T) {
	multi := testarchive.TarXzBlocks(bigEntries(), 64<<10)
	blocks, err := xzBlocks(bytes.NewReader(multi), int64(len(multi)))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 5 {
		t.Fatalf("%d blocks, want many", len(blocks))
	}
	var total uint64
	for _, b := range blocks {
		total += b.uncompressed
	}
	if want := uint64(len(testarchive.Tar(bigEntries()))); total != want {
		t.Errorf("blocks hold %d bytes, the tar is %d", total, want)
	}
	single := testarchive.TarXz(bigEntries())
	if blocks, err := xzBlocks(bytes.NewReader(single), int64(len(single))); err != nil || blocks != nil {
		t.Errorf("single-block file: blocks %v, err %v; want the sequential path", blocks, err)
	}
}

// TestParallelUnpackSameTree unpacks a multi-block archive in parallel
// and in sequence: the trees must be identical.
func TestParallelUnpackSameTree(t *testing.T) {
	data := testarchive.TarXzBlocks(bigEntries(), 64<<10)
	src := filepath.Join(t.TempDir(), "a.tar.xz")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var trees [2]map[string]string
	for i, threads := range []int{4, 1} {
		out := filepath.Join(t.TempDir(), "out")
		if _, err := Unpack(src, out, Options{Threads: threads}); err != nil {
			t.Fatalf("threads=%d: %v", threads, err)
		}
		trees[i] = map[string]string{}
		filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(out, p)
				trees[i][rel] = string(b)
			}
			return nil
		})
	}
	if len(trees[0]) != 8 || fmt.Sprint(trees[0]) != fmt.Sprint(trees[1]) {
		t.Errorf("parallel and sequential trees differ (%d and %d files)", len(trees[0]), len(trees[1]))
	}
}

func TestParallelUnpackCorrupt(t *testing.T) {
	data := testarchive.TarXzBlocks(bigEntries(), 64<<10)
	blocks, _ := xzBlocks(bytes.NewReader(data), int64(len(data)))
	tests := []struct {
		name    string
		mutate  func(b []byte)
		wantErr string
	}{
		{"a byte inside block 3", func(b []byte) { b[blocks[3].offset+40] ^= 0x55 }, fmt.Sprintf("xz: block at offset %d", blocks[3].offset)},
		{"the index", func(b []byte) { b[len(b)-xzFooterSize-6] ^= 0x01 }, "xz: corrupt index"},
		{"the footer", func(b []byte) { b[len(b)-7] ^= 0x01 }, "xz: corrupt stream footer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(data)
			tc.mutate(b)
			src := filepath.Join(t.TempDir(), "a.tar.xz")
			if err := os.WriteFile(src, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Unpack(src, filepath.Join(t.TempDir(), "out"), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}
