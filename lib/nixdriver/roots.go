package nixdriver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A run's temporary GC roots live in a directory $TMPDIR/crff-gc-roots-*
// holding a lock file (owner.lock: the run's pid and start time, for a
// human) that the run holds locked (flock) as long as it lives. The
// kernel drops the lock when the run dies, however it dies: a later run
// finds the directories whose lock it can take and removes them, and
// with them the roots (Nix's gcroots/auto links into them then dangle,
// and Nix forgets them). It finds them in its own $TMPDIR, and wherever
// a run with another $TMPDIR left them by those gcroots/auto links: Nix
// registers every root there, so a directory that holds any root is
// found (one that holds none keeps nothing alive in the store).

// rootDirPrefix names the directories of GC roots in $TMPDIR.
const rootDirPrefix = "crff-gc-roots-"

// ownerLock is the lock file in each.
const ownerLock = "owner.lock"

// rootDir is one run's directory of GC roots, and its lock.
type rootDir struct {
	path string
	lock *os.File
}

// newRootDir makes a locked directory of GC roots. It is made under a
// name no later run looks at, locked, then renamed into place, so that
// no run sees it unlocked.
func newRootDir() (*rootDir, error) {
	tmp, err := os.MkdirTemp("", ".crff-gc-roots-new-")
	if err != nil {
		return nil, fmt.Errorf("GC roots: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(tmp, ownerLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		_, err = fmt.Fprintf(lock, "pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	}
	final := filepath.Join(filepath.Dir(tmp), rootDirPrefix+strings.TrimPrefix(filepath.Base(tmp), ".crff-gc-roots-new-"))
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("GC roots: %w", err)
	}
	return &rootDir{path: final, lock: lock}, nil
}

// remove removes the directory, then lets its lock go.
func (d *rootDir) remove() error {
	err := os.RemoveAll(d.path)
	d.lock.Close()
	return err
}

// RemoveStaleRoots removes the directories of GC roots whose run is dead
// (their lock is free, or they have none), and says how many it removed
// in one log line. A live run's directory is left alone. It looks in
// $TMPDIR, and, for runs that had another $TMPDIR, at the roots Nix
// registered (gcroots/auto of Nix's state directory: see staleRegistered).
func RemoveStaleRoots(log *slog.Logger) int {
	// $TMPDIR's own directories: one without a lock file is an earlier
	// version's. TMPDIR itself may be a link (/tmp on some systems).
	var candidates []candidate
	if tmp, err := filepath.EvalSymlinks(os.TempDir()); err == nil {
		dirs, _ := filepath.Glob(filepath.Join(tmp, rootDirPrefix+"*"))
		for _, d := range dirs {
			candidates = append(candidates, candidate{dir: d})
		}
	}
	// Directories named only by a link in gcroots/auto, which any client
	// of a daemon can register anywhere: they must hold a lock file.
	auto := filepath.Join(nixStateDir(), "gcroots", "auto")
	registered, err := registeredRootDirs(auto)
	if err != nil {
		log.Debug("cannot read Nix's registered GC roots", "dir", auto, "error", err)
	}
	for _, d := range registered {
		candidates = append(candidates, candidate{dir: d, needsLock: true})
	}
	removed := 0
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c.dir] {
			continue
		}
		seen[c.dir] = true
		if stale, err := c.isStale(); err != nil || !stale {
			continue
		}
		if err := os.RemoveAll(c.dir); err != nil {
			log.Warn("cannot remove the GC roots of a dead run", "dir", c.dir, "error", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		log.Warn("removed the GC roots of runs that died", "directories", removed)
	}
	return removed
}

// candidate is a directory that may hold a dead run's GC roots.
type candidate struct {
	dir string
	// needsLock: found only through a registered root, so a directory
	// without a lock file is not taken for an earlier version's.
	needsLock bool
}

// nixStateDir is Nix's state directory, as Nix finds it: $NIX_STATE_DIR,
// else /nix/var/nix (the one every installation this program supports
// uses; `nix show-config` does not show it).
func nixStateDir() string {
	if d := os.Getenv("NIX_STATE_DIR"); d != "" {
		return d
	}
	return "/nix/var/nix"
}

// maxRegistered bounds how many of gcroots/auto's links are read: a
// store whose auto directory holds more is left for a GC to tidy
// (dangling links are removed by Nix's next GC), and the run goes on.
const maxRegistered = 1 << 20

// registeredRootDirs are the directories of GC roots that Nix's
// registered roots point into: each link in auto (named by a hash, Nix's
// record of an indirect root) whose target lies directly in a directory
// named crff-gc-roots-*. Only the directory names are returned; isStale
// then checks that each is a real directory of this user's with a free
// lock. Nothing here follows a link to anything else.
func registeredRootDirs(auto string) ([]string, error) {
	f, err := os.Open(auto)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var dirs []string
	seen := map[string]bool{}
	for read := 0; read < maxRegistered; {
		names, err := f.Readdirnames(4096)
		read += len(names)
		for _, name := range names {
			target, err := os.Readlink(filepath.Join(auto, name))
			if err != nil || !filepath.IsAbs(target) {
				continue
			}
			dir := filepath.Dir(filepath.Clean(target))
			if strings.HasPrefix(filepath.Base(dir), rootDirPrefix) && !seen[dir] {
				seen[dir] = true
				dirs = append(dirs, dir)
			}
		}
		if errors.Is(err, io.EOF) {
			return dirs, nil
		}
		if err != nil {
			return dirs, err
		}
	}
	return dirs, nil
}

// isStale: the directory is a dead run's. Only what this program makes
// is ever stale: a real directory of this process's user, reached through
// no symbolic link, holding only symbolic links (the roots) beside its
// lock file, a regular file nobody holds locked. A directory without a
// lock file is one an earlier version of this program left (a directory
// is made locked), unless needsLock. Another user's roots are theirs.
func (c candidate) isStale() (bool, error) {
	if real, err := filepath.EvalSymlinks(c.dir); err != nil || real != filepath.Clean(c.dir) {
		return false, err
	}
	fi, err := os.Lstat(c.dir)
	if err != nil || !fi.IsDir() || !ownedByMe(fi) {
		return false, err
	}
	if ok, err := onlyRootsIn(c.dir); err != nil || !ok {
		return false, err
	}
	lockPath := filepath.Join(c.dir, ownerLock)
	li, err := os.Lstat(lockPath)
	if errors.Is(err, os.ErrNotExist) {
		return !c.needsLock, nil
	}
	if err != nil || !li.Mode().IsRegular() || !ownedByMe(li) {
		return false, err
	}
	f, err := os.OpenFile(lockPath, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// ownedByMe: the file is this process's user's.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// maxRootsInDir bounds how many entries of a candidate directory are
// read: a run's directory holds one link per root, one per derivation
// output it built at the most.
const maxRootsInDir = 1 << 20

// onlyRootsIn: every entry of dir but the lock file is a symbolic link,
// as in the directories newRootDir makes (and a run's roots): a
// directory with anything else in it is not this program's.
func onlyRootsIn(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for read := 0; read < maxRootsInDir; {
		entries, err := f.ReadDir(4096)
		read += len(entries)
		for _, e := range entries {
			if e.Name() != ownerLock && e.Type()&os.ModeSymlink == 0 {
				return false, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}
