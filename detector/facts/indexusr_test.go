package facts

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// indexUsrImpls are the searches that must agree with bytes.Index: the
// scalar one, indexUsr as dispatched, and (indexusr_amd64_test.go) the
// vector path when the CPU has it.
var indexUsrImpls = map[string]func([]byte) int{
	"indexUsrScalar": indexUsrScalar,
	"indexUsr":       indexUsr,
}

func checkIndexUsr(t *testing.T, data []byte) {
	t.Helper()
	want := bytes.Index(data, usrBytes)
	for name, f := range indexUsrImpls {
		if got := f(data); got != want {
			t.Fatalf("%s(%q) = %d, bytes.Index = %d", name, data, got, want)
		}
	}
}

func TestIndexUsr(t *testing.T) {
	t.Logf("implementations checked: %d", len(indexUsrImpls))
	for _, s := range []string{"", "/", "/usr", "/usr/", "u", "usr/", "x/usr/", "/usr/x", "//usr/", "/uusr/", "/u/usr/",
		"/usr", "a/usr/b/usr/", "/us/usr", "uuuu/usr/", "/usrr/usr/"} {
		checkIndexUsr(t, []byte(s))
	}
	// Every length up to 100 with one match at every position, over a
	// background of near misses ("/u" and "sr/" but never "/usr/") or of
	// one unrelated byte; and with none.
	for _, fill := range []string{"x", "/", "/u/sr", "/usx/", "/ur/s"} {
		for n := 0; n <= 100; n++ {
			data := make([]byte, n)
			for i := range data {
				data[i] = fill[i%len(fill)]
			}
			checkIndexUsr(t, data)
			for at := 0; at+len(usrBytes) <= n; at++ {
				d := bytes.Clone(data)
				copy(d[at:], usrBytes)
				checkIndexUsr(t, d)
			}
		}
	}
	// Random bytes over the needle's alphabet plus one other byte, where
	// matches and near misses are dense, at lengths that end inside,
	// at and past the vector blocks.
	rng := rand.New(rand.NewSource(1))
	for range 50000 {
		data := make([]byte, rng.Intn(200))
		for i := range data {
			data[i] = "/usrx"[rng.Intn(5)]
		}
		checkIndexUsr(t, data)
	}
	// Mostly a byte of the needle, so the few matches land anywhere in a
	// long input.
	for range 2000 {
		data := bytes.Repeat([]byte("/"), rng.Intn(400))
		for range rng.Intn(4) {
			if len(data) >= len(usrBytes) {
				copy(data[rng.Intn(len(data)-len(usrBytes)+1):], "/usr/"[:1+rng.Intn(5)])
			}
		}
		checkIndexUsr(t, data)
	}
}

// FuzzIndexUsr maps each fuzz input both as it is and onto the alphabet
// "/usrx" (byte mod 5), where matches are frequent.
func FuzzIndexUsr(f *testing.F) {
	f.Add([]byte("lib/usr/x"))
	f.Add([]byte("/usr/"))
	f.Add(bytes.Repeat([]byte("ab/usr/"), 10))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkIndexUsr(t, data)
		dense := make([]byte, len(data))
		for i, c := range data {
			dense[i] = "/usrx"[c%5]
		}
		checkIndexUsr(t, dense)
	})
}

// BenchmarkIndexUsr searches a 128 KiB piece of libcufft, the size walk
// hands indexUsr after hashing it, with each implementation.
func BenchmarkIndexUsr(b *testing.B) {
	// A real NVIDIA library: INDEXUSR_BENCH_FILE, or libcufft 10.9 of the
	// real-CUDA directory (CRFF_REAL_CUDA, scripts/fetch-real-cuda.sh).
	lib := os.Getenv("INDEXUSR_BENCH_FILE")
	if lib == "" {
		lib = filepath.Join(testenv.RealCUDA(b), "root/usr/lib/x86_64-linux-gnu/libcufft.so.10.9.0.58")
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		b.Skipf("needs a real NVIDIA library (INDEXUSR_BENCH_FILE): %v", err)
	}
	// A piece from the middle, past the ELF headers; none of libcufft's
	// /usr/ (if any) is in it, so the search runs to the end.
	piece := data[len(data)/2:][:128<<10]
	if bytes.Contains(piece, usrBytes) {
		b.Fatalf("the piece holds /usr/; the benchmark would stop early")
	}
	for name, f := range indexUsrImpls {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(piece)))
			for range b.N {
				if f(piece) != -1 {
					b.Fatal("found /usr/")
				}
			}
		})
	}
}
