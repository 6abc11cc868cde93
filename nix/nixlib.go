package nixlib

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// CacheName is the directory under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache) that holds the written libraries.
const CacheName = "cuda-redist-find-features"

// ListFile lists, one path a line relative to the repository's root, the
// files outside nix/ that the Nix library reads (lib/manifest/keys.json):
// the Nix side's list, which nix/nixlib-source.nix installs and Files
// takes from its caller (this package imports nothing of lib/).
const ListFile = "library-files.txt"

// Outside are the files ListFile lists, by their path in the repository
// (lib/manifest/keys.json), as the packages that own them embed them.
func Outside() ([]string, error) {
	data, err := files.ReadFile(ListFile)
	if err != nil {
		return nil, fmt.Errorf("embedded %s: %w", ListFile, err)
	}
	return strings.Fields(string(data)), nil
}

// Files are the library's files by their path in the repository's layout
// (nix/cli.nix, lib/manifest/keys.json): cli.nix reads
// ../lib/manifest, so the layout is kept. outside holds the bytes of the
// files ListFile lists, by path: exactly those. Empty without Embedded.
func Files(outside map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	names, err := fs.Glob(files, "*.nix")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return out, nil
	}
	listed, err := Outside()
	if err != nil {
		return nil, err
	}
	if len(listed) != len(outside) {
		return nil, fmt.Errorf("nix library: %d files given for the %d that nix/%s lists", len(outside), len(listed), ListFile)
	}
	for _, n := range listed {
		b, ok := outside[n]
		if !ok {
			return nil, fmt.Errorf("nix library: nix/%s lists %s, which was not given", ListFile, n)
		}
		out[n] = b
	}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("embedded %s: %w", n, err)
		}
		out[path.Join("nix", n)] = b
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
