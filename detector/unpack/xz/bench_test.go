package xz_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack/xz"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// BenchmarkDecodeArchive decodes a real CUDA archive to io.Discard: the
// file named by XZ_BENCH_FILE, or else the libcurand archive of the
// repository's benchmark cache (tests/.cache/bench, see bench.sh).
func BenchmarkDecodeArchive(b *testing.B) {
	data, err := os.ReadFile(testenv.BenchArchive(b, "XZ_BENCH_FILE"))
	if err != nil {
		b.Fatal(err)
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
