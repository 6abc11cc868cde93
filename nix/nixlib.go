package nixlib

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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

// Extract writes the embedded library under cacheRoot/<hash> unless it
// is there already with the same content, and returns its nix directory.
// The write is atomic: other runs see the whole library or none.
func Extract(cacheRoot string) (string, error) {
	lib, err := Files()
	if err != nil {
		return "", err
	}
	if len(lib) == 0 {
		return "", errors.New("this binary carries no Nix library (built with crff_noembed)")
	}
	dir := filepath.Join(cacheRoot, Hash(lib))
	if same(dir, lib) {
		return filepath.Join(dir, "nix"), nil
	}
	if err := os.MkdirAll(cacheRoot, 0o755); err != nil {
		return "", fmt.Errorf("nix library cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheRoot, ".tmp-")
	if err != nil {
		return "", fmt.Errorf("nix library cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := write(tmp, lib); err != nil {
		return "", err
	}
	// A directory someone changed is replaced, not trusted.
	if _, err := os.Stat(dir); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("nix library cache: replacing the changed %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil && !same(dir, lib) {
		return "", fmt.Errorf("nix library cache: %w", err)
	}
	return filepath.Join(dir, "nix"), nil
}

// write writes the files under root.
func write(root string, lib map[string][]byte) error {
	for _, n := range sortedNames(lib) {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("nix library cache: %w", err)
		}
		if err := os.WriteFile(p, lib[n], 0o444); err != nil {
			return fmt.Errorf("nix library cache: %w", err)
		}
	}
	return nil
}

// same says whether dir holds exactly lib's files with lib's contents
// (a run that another run raced with, or an earlier run, wrote it).
func same(dir string, lib map[string][]byte) bool {
	for n, want := range lib {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil || !bytes.Equal(got, want) {
			return false
		}
	}
	return true
}

func sortedNames(lib map[string][]byte) []string {
	names := make([]string, 0, len(lib))
	for n := range lib {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
