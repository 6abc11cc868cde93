package nixlib

import (
	"crypto/sha256"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/nix-community/go-nix/pkg/nar"
	"github.com/nix-community/go-nix/pkg/nixbase32"
)

// StoreName is the name of the library's store path
// (<store>/<hash>-cuda-redist-find-features-nixlib).
const StoreName = "cuda-redist-find-features-nixlib"

// NarHash is the SHA-256 of the NAR serialisation of lib laid out as
// Extract writes it (directories, and files that are not executable):
// the hash `builtins.path { sha256 = …; recursive = true; }` checks the
// copy Nix adds to its store against.
func NarHash(lib map[string][]byte) ([32]byte, error) {
	h := sha256.New()
	w, err := nar.NewWriter(h)
	if err != nil {
		return [32]byte{}, err
	}
	// NAR lists a directory's entries in byte order of their names, which
	// is the byte order of the paths once a directory sorts before what
	// it holds ("/lib" < "/lib/manifest" < "/lib/manifest/keys.json").
	dirs := map[string]bool{"/": true}
	for n := range lib {
		for d := path.Dir("/" + n); d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	type node struct {
		path string
		dir  bool
	}
	var nodes []node
	for d := range dirs {
		nodes = append(nodes, node{d, true})
	}
	for n := range lib {
		nodes = append(nodes, node{"/" + n, false})
	}
	// Compare component by component: "/nix" before "/nix-x" even though
	// '/' > '-' as bytes.
	sort.Slice(nodes, func(i, j int) bool {
		return strings.ReplaceAll(nodes[i].path, "/", "\x00") < strings.ReplaceAll(nodes[j].path, "/", "\x00")
	})
	for _, n := range nodes {
		if n.dir {
			err = w.WriteHeader(&nar.Header{Path: n.path, Type: nar.TypeDirectory})
		} else {
			b := lib[n.path[1:]]
			if err = w.WriteHeader(&nar.Header{Path: n.path, Type: nar.TypeRegular, Size: int64(len(b))}); err == nil {
				_, err = w.Write(b)
			}
		}
		if err != nil {
			w.Close()
			return [32]byte{}, fmt.Errorf("NAR of the Nix library: %s: %w", n.path, err)
		}
	}
	if err := w.Close(); err != nil {
		return [32]byte{}, fmt.Errorf("NAR of the Nix library: %w", err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// StorePath is the store path Nix gives a directory whose NAR hash is
// narHash when it adds it under name (builtins.path, nix-store --add): a
// "source" path without references, as Nix's makeFixedOutputPath makes
// it for a recursive SHA-256.
func StorePath(storeDir, name string, narHash [32]byte) string {
	fingerprint := fmt.Sprintf("source:sha256:%x:%s:%s", narHash, storeDir, name)
	full := sha256.Sum256([]byte(fingerprint))
	// Nix's compressHash: XOR-fold the 32 bytes into 20.
	var short [20]byte
	for i, b := range full {
		short[i%20] ^= b
	}
	return storeDir + "/" + nixbase32.EncodeToString(short[:]) + "-" + name
}
