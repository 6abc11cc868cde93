package detector

import (
	"bytes"
	"math/rand"
	"testing"
)

// indexUsr must agree with bytes.Index on every input.
func checkIndexUsr(t *testing.T, data []byte) {
	t.Helper()
	if got, want := indexUsr(data), bytes.Index(data, usrBytes); got != want {
		t.Fatalf("indexUsr(%q) = %d, bytes.Index = %d", data, got, want)
	}
}

func TestIndexUsr(t *testing.T) {
	for _, s := range []string{"", "/", "/usr", "/usr/", "u", "usr/", "x/usr/", "/usr/x", "//usr/", "/uusr/", "/u/usr/",
		"/usr", "a/usr/b/usr/", "/us/usr", "uuuu/usr/", "/usrr/usr/"} {
		checkIndexUsr(t, []byte(s))
	}
	// Random bytes over the needle's alphabet, where matches and near
	// misses are frequent.
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		data := make([]byte, rng.Intn(40))
		for i := range data {
			data[i] = "/usrx"[rng.Intn(5)]
		}
		checkIndexUsr(t, data)
	}
}

func FuzzIndexUsr(f *testing.F) {
	f.Add([]byte("lib/usr/x"))
	f.Add([]byte("/usr/"))
	f.Fuzz(func(t *testing.T, data []byte) { checkIndexUsr(t, data) })
}
