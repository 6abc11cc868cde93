package fatbin

import (
	"bytes"
	"testing"

	"github.com/pierrec/lz4/v4"
)

func compress(t testing.TB, src []byte) []byte {
	buf := make([]byte, lz4.CompressBlockBound(len(src)))
	n, err := lz4.CompressBlock(src, buf, nil)
	if err != nil || n == 0 {
		t.Fatalf("CompressBlock: n=%d err=%v", n, err)
	}
	return buf[:n]
}

// TestLZ4Prefix checks the prefix decoder against a full LZ4 library on
// data with long literal runs, long matches and overlapping copies.
func TestLZ4Prefix(t *testing.T) {
	var src []byte
	for i := 0; i < 300; i++ {
		src = append(src, byte(i*7), byte(i))
	}
	src = append(src, bytes.Repeat([]byte("ab"), 2000)...)
	src = append(src, bytes.Repeat([]byte{0}, 5000)...)
	src = append(src, []byte("the end, with some literals at the tail")...)
	block := compress(t, src)
	for _, n := range []int{1, 64, 600, 4096, len(src), len(src) + 100} {
		got, err := lz4Prefix(block, n)
		if err != nil {
			t.Fatalf("lz4Prefix(n=%d): %v", n, err)
		}
		want := src[:min(n, len(src))]
		if !bytes.Equal(got, want) {
			t.Fatalf("lz4Prefix(n=%d) differs from the source (got %d bytes)", n, len(got))
		}
	}
}

func TestLZ4PrefixCorrupt(t *testing.T) {
	for name, block := range map[string][]byte{
		"offset before start": {0x10, 'a', 0x05, 0x00},
		"zero offset":         {0x10, 'a', 0x00, 0x00},
		"literals past end":   {0xF0, 0x20, 'a'},
		"truncated offset":    {0x10, 'a', 0x01},
	} {
		if _, err := lz4Prefix(block, 100); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzLZ4Prefix(f *testing.F) {
	f.Add(compress(f, bytes.Repeat([]byte("cubin"), 100)), 4096)
	f.Fuzz(func(t *testing.T, block []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		out, _ := lz4Prefix(block, n)
		if len(out) > n {
			t.Fatalf("decoded %d bytes, asked for %d", len(out), n)
		}
	})
}
