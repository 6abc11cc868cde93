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

// BenchmarkScan times Scan on the bench's libcufft (CUDA 11.8, 279 MB:
// 236 MB of data sections, most of them .data), the library on which the
// scan made detect slowest (docs/performance.md). CRFF_BENCH_LIBRARY
// names another library, relative to CRFF_REAL_CUDA. It reports the
// bytes of sections read as MB/s; without CRFF_REAL_CUDA it is skipped.
func BenchmarkScan(b *testing.B) {
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
