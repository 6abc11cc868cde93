package nixdriver

import (
	"errors"
	"fmt"
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
// and Nix forgets them).

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

// RemoveStaleRoots removes the directories of GC roots in $TMPDIR whose
// run is dead (their lock is free, or they have none), and says how many
// it removed in one log line. A live run's directory is left alone.
func RemoveStaleRoots(log *slog.Logger) int {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), rootDirPrefix+"*"))
	removed := 0
	for _, dir := range dirs {
		if stale, err := isStale(dir); err != nil || !stale {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("cannot remove the GC roots of a dead run", "dir", dir, "error", err)
			continue
		}
		removed++
	}
	if removed > 0 {
		log.Warn("removed the GC roots of runs that died", "directories", removed, "in", os.TempDir())
	}
	return removed
}

// isStale: dir's run is dead. A directory without a lock file is one an
// earlier version of this program left (made locked, a directory always
// has one).
func isStale(dir string) (bool, error) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false, err
	}
	f, err := os.Open(filepath.Join(dir, ownerLock))
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
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
