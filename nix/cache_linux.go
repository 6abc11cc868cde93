package nixlib

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The cache is the user's own, as OpenSSH (StrictModes) and Go's module
// cache want theirs: every directory and file of it, from the cache root
// down, is owned by the user running the binary and writable by no one
// else, and none is a symbolic link. Anything else is refused with its
// name and the fix, never repaired: a root's run with a cache another
// user owns stops there, so that user cannot choose what root writes or
// evaluates. The checks run on file descriptors (openat with O_NOFOLLOW,
// fstat), so no path is resolved twice by the checks and the writes.
//
// The cache directory's parent ($XDG_CACHE_HOME, ~/.cache) follows the
// rule of cacheparent_linux.go: a link of the user's is fine, and it must
// be the user's or root's, writable by no one else unless sticky.
//
// Writers take the lock file .lock in the cache root; they write a
// complete copy under .tmp-<random> and rename it into place, so a
// reader never sees a partial library, and concurrent first runs all
// succeed (the second writer finds the first one's copy, checked, and
// uses it). A .tmp-* directory seen while holding the lock was left by a
// writer that died: it is removed.
//
// Each version of the library has its own <hash> (and <hash>.gcroot, the
// GC root that keeps its store copy: nixdriver), so an upgrade leaves
// the older ones behind. A run touches its own copy (its mtime is its
// last use), and under the lock removes the copies, with their roots,
// of the others that no run used for staleAfter (cacheprune_linux.go).

// lockName is the writers' lock file in the cache root.
const lockName = ".lock"

// tmpPrefix names a copy being written (or a replaced one being removed).
const tmpPrefix = ".tmp-"

// Extract writes the embedded library, with the outside files (Files),
// under cacheRoot/<hash> unless it is there already, exactly, and returns
// that directory (holding nix/ and lib/manifest/). Its caller evaluates
// the library from a copy in the Nix store (see nixdriver), never from
// this directory.
func Extract(cacheRoot string, outside map[string][]byte) (string, error) {
	dir, err := extract(cacheRoot, outside)
	if errors.As(err, new(*UnsafeError)) {
		err = fmt.Errorf("nix library cache: %w (the cache must be yours alone: another user who can change it chooses the Nix code this program evaluates)", err)
	}
	return dir, err
}

func extract(cacheRoot string, outside map[string][]byte) (string, error) {
	lib, err := Files(outside)
	if err != nil {
		return "", err
	}
	if len(lib) == 0 {
		return "", errors.New("this binary carries no Nix library (built with crff_noembed)")
	}
	c, err := openCache(cacheRoot)
	if err != nil {
		return "", err
	}
	defer c.close()
	name := Hash(lib)
	dir := filepath.Join(cacheRoot, name)
	err = c.verify(name, lib)
	if err == nil {
		c.touch(name)
		c.removeLeftovers(name, false)
		return dir, nil
	}
	var unsafeErr *UnsafeError
	if errors.As(err, &unsafeErr) {
		return "", err
	}
	unlock, err := c.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	// Under the lock no other writer is at work: every .tmp-* is a dead one's.
	c.removeLeftovers(name, true)
	err = c.verify(name, lib)
	switch {
	case err == nil:
		// Another run wrote it while this one waited for the lock.
		c.touch(name)
		return dir, nil
	case errors.As(err, &unsafeErr):
		return "", err
	case !errors.Is(err, errMissing):
		// The user's own copy, changed or damaged: replaced, not trusted.
		old := tmpName()
		if err := syscall.Renameat(c.fd, name, c.fd, old); err != nil {
			return "", fmt.Errorf("nix library cache: replacing the changed %s: %w", dir, err)
		}
		// Moved aside, it is a leftover: should this removal fail, a
		// later run's will be tried.
		removeAt(c.fd, old)
	}
	tmp := tmpName()
	if err := writeAt(c.fd, tmp, lib); err != nil {
		removeAt(c.fd, tmp)
		return "", fmt.Errorf("nix library cache: writing %s: %w", filepath.Join(cacheRoot, tmp), err)
	}
	if err := syscall.Renameat(c.fd, tmp, c.fd, name); err != nil {
		removeAt(c.fd, tmp)
		return "", fmt.Errorf("nix library cache: %s: %w", dir, err)
	}
	return dir, nil
}

// errMissing: the library's directory is not there yet.
var errMissing = errors.New("not there")

// cache is the opened, checked cache root.
type cache struct {
	path string
	fd   int
	uid  int
}

// openCache opens cacheRoot, making it (and its parent) when missing,
// and checks it and its parent.
func openCache(cacheRoot string) (*cache, error) {
	uid := os.Geteuid()
	parent, base := filepath.Dir(cacheRoot), filepath.Base(cacheRoot)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("nix library cache: %w", err)
	}
	pfd, err := syscall.Open(parent, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("nix library cache: %s: %w", parent, err)
	}
	defer syscall.Close(pfd)
	if err := checkParentFd(pfd, parent, uid); err != nil {
		var unsafe *UnsafeError
		if errors.As(err, &unsafe) {
			unsafe.Fix += ", or pass --nix-lib"
		}
		return nil, err
	}
	fd, err := openDir(pfd, base, cacheRoot)
	if errors.Is(err, errMissing) {
		if err := syscall.Mkdirat(pfd, base, 0o700); err != nil && err != syscall.EEXIST {
			return nil, fmt.Errorf("nix library cache: %s: %w", cacheRoot, err)
		}
		fd, err = openDir(pfd, base, cacheRoot)
	}
	if err != nil {
		return nil, err
	}
	c := &cache{path: cacheRoot, fd: fd, uid: uid}
	if err := c.checkOwn(fd, cacheRoot, true); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *cache) close() { syscall.Close(c.fd) }

// openDir opens name in the directory dirfd without following a link:
// errMissing when there is none, an UnsafeError when it is a link or
// not a directory.
func openDir(dirfd int, name, full string) (int, error) {
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	switch err {
	case nil:
		return fd, nil
	case syscall.ENOENT:
		return -1, errMissing
	case syscall.ELOOP, syscall.ENOTDIR:
		// With O_DIRECTORY Linux says ENOTDIR of a link too; without it,
		// O_NOFOLLOW says ELOOP of a link alone.
		if isLinkAt(dirfd, name) {
			return -1, &UnsafeError{full, "is a symbolic link, not a directory", "remove the link (rm " + full + "); the cache follows none"}
		}
		return -1, &UnsafeError{full, "is not a directory", "remove it (rm " + full + ")"}
	}
	return -1, fmt.Errorf("nix library cache: %s: %w", full, err)
}

// isLinkAt says whether name in dirfd is a symbolic link.
func isLinkAt(dirfd int, name string) bool {
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err == nil {
		syscall.Close(fd)
	}
	return err == syscall.ELOOP
}

// _AT_REMOVEDIR is Linux's value on every architecture; package syscall
// does not export it.
const _AT_REMOVEDIR = 0x200

// checkOwn refuses fd (named full) unless the user owns it and no one
// else can write it.
func (c *cache) checkOwn(fd int, full string, dir bool) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	if int(st.Uid) != c.uid {
		return &UnsafeError{full, fmt.Sprintf("is owned by uid %d, not by you (uid %d)", st.Uid, c.uid),
			fmt.Sprintf("if it is yours to remove, remove %s (it is written again); else set XDG_CACHE_HOME to a directory of your own, or pass --nix-lib", c.path)}
	}
	if st.Mode&0o022 != 0 {
		return &UnsafeError{full, fmt.Sprintf("is writable by its group or others (mode %04o)", st.Mode&0o7777),
			fmt.Sprintf("run chmod -R go-w %s", c.path)}
	}
	if !dir && st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return &UnsafeError{full, "is not a regular file", "remove " + c.path + " (it is written again)"}
	}
	return nil
}

// errDiffers: the directory is the user's own but not the library.
var errDiffers = errors.New("differs from this binary's library")

// verify checks the directory name against lib: errMissing when it is
// not there, an UnsafeError when it or anything in it is not the user's
// alone (or a link), errDiffers when its files are not exactly lib's
// (a missing, extra, executable or changed file).
func (c *cache) verify(name string, lib map[string][]byte) error {
	full := filepath.Join(c.path, name)
	fd, err := openDir(c.fd, name, full)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := c.checkOwn(fd, full, true); err != nil {
		return err
	}
	return c.verifyDir(fd, full, "", lib)
}

// verifyDir checks the directory fd, which is rel in the library.
func (c *cache) verifyDir(fd int, full, rel string, lib map[string][]byte) error {
	want := children(lib, rel)
	entries, err := listDir(fd)
	if err != nil {
		return fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	if len(entries) != len(want) {
		return fmt.Errorf("%s: %w", full, errDiffers)
	}
	sort.Strings(entries)
	for _, e := range entries {
		isDir, ok := want[e]
		if !ok {
			return fmt.Errorf("%s: %w", filepath.Join(full, e), errDiffers)
		}
		sub, subFull := path.Join(rel, e), filepath.Join(full, e)
		if isDir {
			dfd, err := openDir(fd, e, subFull)
			if err != nil {
				return err
			}
			err = c.checkOwn(dfd, subFull, true)
			if err == nil {
				err = c.verifyDir(dfd, subFull, sub, lib)
			}
			syscall.Close(dfd)
			if err != nil {
				return err
			}
			continue
		}
		if err := c.verifyFile(fd, e, subFull, lib[sub]); err != nil {
			return err
		}
	}
	return nil
}

// verifyFile checks the file name in dirfd holds exactly want and is not
// executable (the NAR hash the store copy is checked against says so).
func (c *cache) verifyFile(dirfd int, name, full string, want []byte) error {
	// O_NONBLOCK: a FIFO planted here must not block the open.
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err == syscall.ELOOP {
		return &UnsafeError{full, "is a symbolic link, not a file", "remove " + c.path + " (it is written again)"}
	}
	if err != nil {
		return fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	f := os.NewFile(uintptr(fd), full)
	defer f.Close()
	if err := c.checkOwn(fd, full, false); err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	if st.Size() != int64(len(want)) || st.Mode()&0o111 != 0 {
		return fmt.Errorf("%s: %w", full, errDiffers)
	}
	got, err := io.ReadAll(io.LimitReader(f, int64(len(want))+1))
	if err != nil {
		return fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: %w", full, errDiffers)
	}
	return nil
}

// children are the names directly in the library's directory rel, each
// saying whether it is a directory.
func children(lib map[string][]byte, rel string) map[string]bool {
	out := map[string]bool{}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for n := range lib {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok {
			continue
		}
		first, _, deeper := strings.Cut(rest, "/")
		out[first] = out[first] || deeper
	}
	return out
}

// lock takes the writers' lock, waiting for another writer to finish.
func (c *cache) lock() (func(), error) {
	full := filepath.Join(c.path, lockName)
	fd, err := syscall.Openat(c.fd, lockName, syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err == syscall.ELOOP {
		return nil, &UnsafeError{full, "is a symbolic link, not a file", "remove it"}
	}
	if err != nil {
		return nil, fmt.Errorf("nix library cache: %s: %w", full, err)
	}
	if err := c.checkOwn(fd, full, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := flock(fd, syscall.LOCK_EX); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("nix library cache: locking %s: %w", full, err)
	}
	return func() { syscall.Close(fd) }, nil
}

// flock is syscall.Flock, again when a signal interrupts the wait.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// removeLeftovers removes the .tmp-* entries of writers that died, and
// the copies of other versions of the library not used for staleAfter,
// each with its GC root link (staleCopies). current is this binary's
// copy, never removed. locked: the caller holds the lock; else the lock
// is tried, and the leftovers wait for a later run when another writer
// holds it (they may be that writer's). Failures are left for a later
// run: a leftover costs disk space, not correctness.
func (c *cache) removeLeftovers(current string, locked bool) {
	names, _ := listDir(c.fd)
	var left []string
	for _, n := range names {
		if strings.HasPrefix(n, tmpPrefix) {
			left = append(left, n)
		}
	}
	now := time.Now()
	if len(left) == 0 && len(c.staleCopies(names, current, now)) == 0 {
		return
	}
	if !locked {
		fd, err := syscall.Openat(c.fd, lockName, syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return
		}
		defer syscall.Close(fd)
		if c.checkOwn(fd, filepath.Join(c.path, lockName), false) != nil || syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return
		}
	}
	for _, n := range left {
		removeAt(c.fd, n)
	}
	// Again under the lock: a copy another writer finished meanwhile is
	// a new one.
	for _, n := range c.staleCopies(names, current, now) {
		removeAt(c.fd, n)
	}
}

// removeAt removes name, and all it holds, from the directory dirfd,
// following no link.
func removeAt(dirfd int, name string) error {
	err := syscall.Unlinkat(dirfd, name)
	if err == nil || err == syscall.ENOENT {
		return nil
	}
	if err != syscall.EISDIR && err != syscall.EPERM {
		return err
	}
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	names, err := listDir(fd)
	if err == nil {
		for _, n := range names {
			if e := removeAt(fd, n); e != nil && err == nil {
				err = e
			}
		}
	}
	syscall.Close(fd)
	if err != nil {
		return err
	}
	return unlinkat(dirfd, name, _AT_REMOVEDIR)
}

// unlinkat is unlinkat(2) with flags, which package syscall keeps to itself.
func unlinkat(dirfd int, name string, flags int) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags))
	if errno != 0 {
		return errno
	}
	return nil
}

// writeAt writes lib into a new directory name in dirfd: directories
// 0755, files 0444, made new (O_EXCL), following no link.
func writeAt(dirfd int, name string, lib map[string][]byte) error {
	if err := syscall.Mkdirat(dirfd, name, 0o755); err != nil {
		return err
	}
	root, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(root)
	names := make([]string, 0, len(lib))
	for n := range lib {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeFileAt(root, n, lib[n]); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

// writeFileAt writes the file rel (slash-separated) under root, making
// its directories.
func writeFileAt(root int, rel string, data []byte) error {
	parts := strings.Split(rel, "/")
	dir := root
	for _, p := range parts[:len(parts)-1] {
		if err := syscall.Mkdirat(dir, p, 0o755); err != nil && err != syscall.EEXIST {
			return err
		}
		fd, err := syscall.Openat(dir, p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if dir != root {
			syscall.Close(dir)
		}
		if err != nil {
			return err
		}
		dir = fd
	}
	if dir != root {
		defer syscall.Close(dir)
	}
	fd, err := syscall.Openat(dir, parts[len(parts)-1], syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o444)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), rel)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// listDir lists the directory fd through a new open of it ("."), so
// that each listing starts at its first entry.
func listDir(fd int) ([]string, error) {
	own, err := syscall.Openat(fd, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(own), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}

// tmpName is a new name for a copy being written.
func tmpName() string {
	var b [8]byte
	rand.Read(b[:])
	return tmpPrefix + hex.EncodeToString(b[:])
}
