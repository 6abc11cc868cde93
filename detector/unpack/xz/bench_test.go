package xz_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack/xz"
)

// BenchmarkDecodeArchive decodes a real CUDA archive to io.Discard: the
// file named by XZ_BENCH_FILE, or else the libcurand archive of the
// repository's benchmark cache (tests/.cache/bench, see bench.sh).
func BenchmarkDecodeArchive(b *testing.B) {
	path := os.Getenv("XZ_BENCH_FILE")
	if path == "" {
		path = filepath.Join("..", "..", "..", "tests", ".cache", "bench", "archives", "libcurand.tar.xz")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no archive to decode (set XZ_BENCH_FILE): %v", err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		r, err := xz.NewReader(bytes.NewReader(data), 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
