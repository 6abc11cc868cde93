package facts_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testnar"
)

// fuzzNames are the names generated trees are made of: the ones the rules
// look for, and a few hostile ones.
var fuzzNames = []string{
	"lib", "include", "bin", "stubs", "lib64", "pkgconfig", "share", "python3.12", "site-packages", "12",
	"libx.so", "libx.so.1", "liby.a", "x.h", "x.pc", "x.py", "tool.exe", "LICENSE", "d", "\xff\xfe", `back\slash`,
}

// fuzzTree builds a tree below root from data: a sequence of operations
// (directory, file, executable, symlink), each naming its parent among the
// directories made so far. Symlink targets are made of names, "." and "..".
func fuzzTree(root string, data []byte) {
	dirs := []string{root}
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	for ops := 0; len(data) > 0 && ops < 64; ops++ {
		op, parent, name := next()%4, dirs[int(next())%len(dirs)], fuzzNames[int(next())%len(fuzzNames)]
		p := filepath.Join(parent, name)
		switch op {
		case 0:
			if os.Mkdir(p, 0o755) == nil {
				dirs = append(dirs, p)
			}
		case 1, 2:
			n := int(binary.LittleEndian.Uint16([]byte{next(), next()}))
			n = min(n, len(data))
			mode := os.FileMode(0o644)
			if op == 2 {
				mode = 0o755
			}
			os.WriteFile(p, data[:n], mode)
			data = data[n:]
		case 3:
			var parts []string
			for i := 0; i < int(next()%4)+1; i++ {
				switch c := next(); c % 8 {
				case 0:
					parts = append(parts, "..")
				case 1:
					parts = append(parts, ".")
				default:
					parts = append(parts, fuzzNames[int(c)%len(fuzzNames)])
				}
			}
			os.Symlink(strings.Join(parts, "/"), p)
		}
	}
}

// FuzzDetect runs Detect on generated trees: it must not panic, its JSON
// must encode, and its NAR hash must be go-nix's.
func FuzzDetect(f *testing.F) {
	lib := sharedLib("libx.so.1", []string{"liby.so"}, 80, 90)
	seed := []byte{0, 0, 0 /* lib/ */, 1, 1, 11, byte(len(lib)), byte(len(lib) >> 8)}
	seed = append(seed, lib...)
	seed = append(seed, 3, 1, 10, 0, 11 /* lib/libx.so -> libx.so.1 */, 3, 0, 0, 2, 0, 0 /* lib -> ../.. */)
	f.Add(seed)
	f.Add([]byte{0, 0, 1, 0, 1, 5, 0, 4, 10, 0, 0, 0, 1, 2, 14, 20, 0, '/', 'u', 's', 'r', '/', 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		fuzzTree(root, data)
		got, err := facts.Detect(root)
		if err != nil {
			return // refused with an error: fine
		}
		if _, err := features.Encode(got); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		want, err := testnar.HashPath(root)
		if err != nil {
			t.Fatal(err)
		}
		if got.NarHash != want {
			t.Fatalf("NarHash %s, go-nix gives %s", got.NarHash, want)
		}
	})
}
