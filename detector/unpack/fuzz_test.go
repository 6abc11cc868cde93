package unpack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// FuzzUnpack feeds arbitrary bytes to Unpack: it may refuse them, but it
// must not panic, it must never create anything beside its output, and a
// refusal must remove the output it created.
func FuzzUnpack(f *testing.F) {
	f.Add(testarchive.Tar(redistEntries))
	f.Add(testarchive.TarGz([]E{F("t/a", "x"), L("t/l", "a"), D("t/d")}))
	f.Add(testarchive.TarXz([]E{F("t/a", "x"), L("t/up", "../..")}))
	f.Add(testarchive.Zip([]E{F("t/a", "x"), L("t/l", "../../etc")}))
	f.Add(testarchive.TarZst([]E{F("t/a", "x"), L("t/l", "a"), D("t/d")}))
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA8, 0x01, 0x00, 0x00}) // a 2 GiB window
	f.Add(testarchive.TarXzBlocks([]E{F("t/a", strings.Repeat("x", 3000)), F("t/b", strings.Repeat("y", 3000))}, 1024))
	f.Add(testarchive.Tar(linkBomb(100, 3)))
	f.Add(testarchive.Tar([]E{D("./"), D("./"), F("t/a", "x")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		src := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, uerr := unpack.Unpack(src, filepath.Join(parent, "out"), unpack.Options{MaxBytes: 1 << 20, MaxEntries: 1000})
		names, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) > 1 || (len(names) == 1 && names[0].Name() != "out") {
			t.Fatalf("Unpack wrote beside its output: %v", names)
		}
		if uerr != nil && len(names) != 0 {
			t.Fatalf("refused (%v) but left its output behind", uerr)
		}
	})
}
