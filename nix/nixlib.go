package nixlib

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// CacheName is the directory under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache) that holds the written libraries.
const CacheName = "cuda-redist-find-features"

// Files are the library's files by their path in the repository's layout
// (nix/cli.nix, lib/manifest/keys.json): cli.nix reads
// ../lib/manifest, so the layout is kept. Empty without Embedded.
func Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	names, err := fs.Glob(files, "*.nix")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return out, nil
	}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("embedded %s: %w", n, err)
		}
		out[path.Join("nix", n)] = b
	}
	for n, b := range manifest.LibraryFiles() {
		out[path.Join("lib", "manifest", n)] = b
	}
	return out, nil
}

// Hash is the SHA-256 of the files' names and contents, hex: the name
// of the directory Extract writes them to.
func Hash(lib map[string][]byte) string {
	names := sortedNames(lib)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%d:%s\n%d:", len(n), n, len(lib[n]))
		h.Write(lib[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func sortedNames(lib map[string][]byte) []string {
	names := make([]string, 0, len(lib))
	for n := range lib {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
