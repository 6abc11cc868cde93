package dlopen_test

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/dlopen"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// benchLibrary is the library the benchmarks read: the bench's libcufft
// (CUDA 11.8, 279 MB: 237 MB of data sections, 216 MB of them fatbin
// containers in .data), on which the run-time load scan made detect
// slowest (docs/performance.md), or the one CRFF_BENCH_LIBRARY names,
// relative to CRFF_REAL_CUDA. Without CRFF_REAL_CUDA the benchmarks are
// skipped.
func benchLibrary(b *testing.B) ([]byte, *elf.File) {
	dir := testenv.RealCUDA(b)
	rel := os.Getenv("CRFF_BENCH_LIBRARY")
	if rel == "" {
		rel = "root/usr/lib/x86_64-linux-gnu/libcufft.so.10.9.0.58"
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		b.Skipf("%v (run scripts/fetch-real-cuda.sh %s)", err, dir)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	return data, f
}

// BenchmarkScan times Scan searching the library's data sections itself
// (as for a file the detector holds in memory), reporting the bytes of
// sections read as MB/s.
func BenchmarkScan(b *testing.B) {
	data, f := benchLibrary(b)
	r, err := dlopen.Scan(f, data, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(r.Work))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := dlopen.Scan(f, data, "", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrescan times what detect does with a large library: read it
// 128 KiB at a time into one buffer (the copy stands for read(2)), feed
// each piece to a Prescan while it is in the CPU's cache, then Scan
// around what it found. "read" is the copies alone: the difference is
// the scan's cost.
func BenchmarkPrescan(b *testing.B) {
	data, f := benchLibrary(b)
	buf := make([]byte, 128<<10)
	read := func(feed func([]byte)) {
		for at := 0; at < len(data); at += len(buf) {
			n := copy(buf, data[at:])
			if feed != nil {
				feed(buf[:n])
			}
		}
	}
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			read(nil)
		}
	})
	b.Run("read+scan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			pre := dlopen.NewPrescan(f, len(data))
			read(pre.Feed)
			if _, err := dlopen.ScanPrescanned(f, data, "", nil, pre); err != nil {
				b.Fatal(err)
			}
		}
	})
}
