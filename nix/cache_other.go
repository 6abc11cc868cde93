//go:build !linux

package nixlib

import "errors"

// Extract needs Linux's openat family to check and write the cache
// without resolving a path twice (cache_linux.go); elsewhere the library
// is given with --nix-lib.
func Extract(cacheRoot string, outside map[string][]byte) (string, error) {
	return "", errors.New("nix library cache: written on Linux only; pass --nix-lib")
}

// CheckCacheParent refuses every directory: the rule
// (cacheparent_linux.go) is checked on Linux only.
func CheckCacheParent(dir string) error {
	return errors.New(dir + ": a cache's parent directory is checked on Linux only")
}
