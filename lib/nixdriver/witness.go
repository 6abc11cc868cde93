package nixdriver

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
)

// Witnesses are the (archive sha256, NAR hash) pairs this user's runs
// have seen: unpacking the archive of that sha256 with this tool gave the
// tree of that NAR hash. Both sides are content hashes, so a witness
// stays true whatever happens to the store; it lets a new version of the
// tool take a pinned tree without unpacking its archive again (CheckPins).
// They live in the user's cache, one file per archive (named by its
// sha256, holding the NAR hash), in a directory only the user can write:
// another user can plant a tree in the shared store but no witness here.
type Witnesses struct {
	dir string
}

// WitnessDirName is the directory of the witnesses in the user's cache
// directory.
const WitnessDirName = "cuda-redist-find-features-unpacked-trees"

// OpenWitnesses opens (creating it) the witness directory of this user in
// cacheDir ($XDG_CACHE_HOME, else ~/.cache). It refuses a directory that
// another user owns or that group or others can write, naming it.
func OpenWitnesses(cacheDir string) (*Witnesses, error) {
	dir := filepath.Join(cacheDir, WitnessDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("witnesses of unpacked trees: %w", err)
	}
	// The library cache's rule for its parent, which is this directory
	// too: a link of the user's (~/.cache often is one) is fine; refusing
	// one cost every run its witnesses, and so an unpack of every pinned
	// archive.
	if err := nixlib.CheckCacheParent(cacheDir); err != nil {
		return nil, fmt.Errorf("witnesses of unpacked trees: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("witnesses of unpacked trees: %w", err)
	}
	if err := ownOnly(dir, st); err != nil {
		return nil, fmt.Errorf("witnesses of unpacked trees: %w", err)
	}
	return &Witnesses{dir: dir}, nil
}

// ownOnly: st is a directory or regular file of this user that no one
// else can write.
func ownOnly(path string, st fs.FileInfo) error {
	if !st.IsDir() && !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a directory or regular file (a symbolic link?)", path)
	}
	if !ownedByMe(st) {
		uid := -1
		if s, ok := st.Sys().(*syscall.Stat_t); ok {
			uid = int(s.Uid)
		}
		return fmt.Errorf("%s: owned by uid %d, not by this user (%d): remove it, or set XDG_CACHE_HOME to a directory of your own", path, uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s: group or others can write it (mode %v): chmod go-w %s", path, st.Mode().Perm(), path)
	}
	return nil
}

// Has: an earlier run witnessed that the archive of sha256 unpacks to
// the tree of narHash.
func (w *Witnesses) Has(sha256, narHash string) bool {
	if w == nil || !manifest.SHA256Hex.MatchString(sha256) {
		return false
	}
	path := filepath.Join(w.dir, sha256)
	st, err := os.Lstat(path)
	if err != nil || ownOnly(path, st) != nil {
		return false
	}
	data, err := inputfile.Read(path, 128)
	return err == nil && string(data) == narHash
}

// Add records a witness; a failure to write one costs only a check on a
// later run, so it is not an error.
func (w *Witnesses) Add(sha256, narHash string) {
	if w == nil || !manifest.SHA256Hex.MatchString(sha256) || !manifest.NarHashSRI.MatchString(narHash) {
		return
	}
	_, _ = atomicfile.WriteIfChanged(filepath.Join(w.dir, sha256), []byte(narHash))
}
