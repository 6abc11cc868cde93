package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDetector is the detector's whole work on one real archive, as
// the pipeline's two derivations run it: unpack, then detect (the NAR
// hash included) of the unpacked tree. The archive is DETECTOR_BENCH_FILE,
// or else the libcurand archive of scripts/bench.sh's cache
// (tests/.cache/bench/archives). docs/performance.md ("Hand-written
// assembly") compares two commits with it through benchstat.
func BenchmarkDetector(b *testing.B) {
	archive := os.Getenv("DETECTOR_BENCH_FILE")
	if archive == "" {
		archive = filepath.Join("..", "..", "tests", ".cache", "bench", "archives", "libcurand.tar.xz")
	}
	if _, err := os.Stat(archive); err != nil {
		b.Skipf("no archive (set DETECTOR_BENCH_FILE, or run scripts/bench.sh once): %v", err)
	}
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
