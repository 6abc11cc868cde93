package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// BenchmarkDetector is the detector's whole work on one real archive, as
// the pipeline's two derivations run it: unpack, then detect (the NAR
// hash included) of the unpacked tree. The archive is DETECTOR_BENCH_FILE,
// or else bench.sh's libcurand archive (testenv.BenchArchive). docs/performance.md ("Hand-written
// assembly") compares two commits with it through benchstat.
func BenchmarkDetector(b *testing.B) {
	archive := testenv.BenchArchive(b, "DETECTOR_BENCH_FILE")
	out := filepath.Join(b.TempDir(), "out")
	unpackOnce := func(b *testing.B) {
		if err := os.RemoveAll(out); err != nil {
			b.Fatal(err)
		}
		if status := run([]string{"unpack", archive, out}, io.Discard, io.Discard); status != 0 {
			b.Fatalf("unpack %s: exit status %d", archive, status)
		}
	}
	b.Run("unpack", func(b *testing.B) {
		for range b.N {
			unpackOnce(b)
		}
	})
	b.Run("detect", func(b *testing.B) {
		unpackOnce(b)
		b.ResetTimer()
		for range b.N {
			if status := run([]string{"detect", out}, io.Discard, io.Discard); status != 0 {
				b.Fatalf("detect %s: exit status %d", out, status)
			}
		}
	})
}
