package nixdriver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
)

// The library the binary carries is evaluated from its copy in the Nix
// store, never from the cache directory it is written to. Nix reads a
// library file by its path, again and again as it imports, long after
// this program checked it; any directory on the way (the cache's parent,
// a home directory) that someone else can rename would let them swap
// what Nix reads in between. A store path is immutable, and its name is
// the hash of its content: builtins.path with the sha256 of the NAR this
// binary computes from its own bytes (nixlib.NarHash) adds the checked
// copy and fails on any other, or, when that path is in the store
// already, uses it without reading the cache at all. So what Nix
// evaluates is exactly the library this binary carries, whoever can
// write anywhere on the way.
//
// A link <cache>/<hash>.gcroot, registered with Nix as an indirect GC
// root, keeps the copy alive between runs; a later run that finds it
// pointing at the expected path (and the path there) asks Nix nothing.
// nix-store --add-root writes that link itself, by its path (a temporary
// link beside it, renamed over it), and registers the path: so it cannot
// be written through the cache's checked descriptor as the copy is, and a
// link this program made there would be replaced by Nix's all the same
// (Nix 2.8 has no command that registers a link without writing it). A
// wrong link costs no correctness: the shortcut also wants the store path
// there, named after this library's NAR hash.

// storeNixLibExpr adds the directory dir to the store under name, which
// Nix checks against sha256 (the hex SHA-256 of its NAR).
const storeNixLibExpr = `{ dir, name, sha256 }: builtins.path { path = dir; inherit name sha256; recursive = true; }`

// storeNixLib returns the store path of the library written to dir by
// nixlib.Extract, adding it to the store when it is not there.
func storeNixLib(ctx context.Context, dir string) (string, error) {
	lib, err := nixlib.Files(NixLibOutside())
	if err != nil {
		return "", err
	}
	narHash, err := nixlib.NarHash(lib)
	if err != nil {
		return "", err
	}
	root := dir + ".gcroot"
	if want := nixlib.StorePath(nixStoreDir(), nixlib.StoreName, narHash); isLiveRoot(root, want) {
		return want, nil
	}
	// Twice: a garbage collection may take the path between the two
	// commands, before it is rooted.
	var last error
	for range 2 {
		got, err := addChecked(ctx, dir, nixlib.StoreName, narHash)
		if err != nil {
			return "", err
		}
		stderr := &nixexec.LimitedBuffer{Max: 64 << 10}
		cmd := nixexec.Command("nix-store", "--realise", got, "--add-root", root)
		cmd.Stderr = stderr
		if last = cmd.Run(ctx); last == nil {
			return got, nil
		}
		last = fmt.Errorf("rooting the Nix library's store path %s at %s: nix-store: %w: %s", got, root, last, strings.TrimSpace(stderr.String()))
	}
	return "", last
}

// addChecked adds the directory dir to the store under name, checked
// against narHash by Nix, and returns its store path.
func addChecked(ctx context.Context, dir, name string, narHash [32]byte) (string, error) {
	add := nixexec.Command("nix-instantiate", "--eval", "--read-write-mode", "--json", "--expr", storeNixLibExpr,
		"--argstr", "dir", dir, "--argstr", "name", name, "--argstr", "sha256", fmt.Sprintf("%x", narHash))
	stderr := &nixexec.LimitedBuffer{Max: 64 << 10}
	add.Stderr = stderr
	out, err := add.Output(ctx)
	if err != nil {
		// "store path mismatch": what Nix read is not what this binary
		// carries (changed after the cache's check).
		return "", fmt.Errorf("adding the Nix library %s to the store: nix-instantiate: %w: %s", dir, err, pkgeval.NixMessage(stderr.String(), ""))
	}
	var got string
	if err := jsoncheck.Unmarshal("nix-instantiate's output", out, &got); err != nil {
		return "", fmt.Errorf("adding the Nix library %s to the store: %w", dir, err)
	}
	// Nix checked the hash; the name says so again, in Go.
	if want := nixlib.StorePath(filepath.Dir(got), name, narHash); got != want {
		return "", fmt.Errorf("adding the Nix library %s to the store: Nix added %s, not %s", dir, got, want)
	}
	return got, nil
}

// isLiveRoot says whether the link root points at the store path want
// and want is there: a root keeps it there.
func isLiveRoot(root, want string) bool {
	target, err := os.Readlink(root)
	if err != nil || target != want {
		return false
	}
	st, err := os.Lstat(want)
	return err == nil && st.IsDir()
}

// nixStoreDir is Nix's store directory: $NIX_STORE_DIR, else /nix/store.
// Only the shortcut of isLiveRoot relies on it: elsewhere Nix says.
func nixStoreDir() string {
	if d := os.Getenv("NIX_STORE_DIR"); d != "" {
		return d
	}
	return "/nix/store"
}
