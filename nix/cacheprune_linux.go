package nixlib

import (
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// staleAfter is how long a copy of another version of the library (with
// its GC root) stays unused before a run removes it. A run touches its
// own copy each time, so a version in use keeps its copy; one unused
// for this long is most likely gone, and should it run again it writes
// its copy (and root) again, as on its first run. A run of a version
// that has not run for so long, caught in the moment between its check
// and Nix's read of the copy, may fail once.
const staleAfter = 30 * 24 * time.Hour

// rootSuffix ends the name of a copy's GC root link: <hash>.gcroot,
// written by nix-store --add-root (nixdriver's nixlibstore.go).
const rootSuffix = ".gcroot"

// isCopyName says whether name is that of a copy's directory: Hash's 32
// lower-case hex digits.
func isCopyName(name string) bool {
	if len(name) != 32 {
		return false
	}
	for _, r := range name {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// staleCopies are the entries of names (the cache root's) to remove at
// now: for each hash but current, its directory <hash> and its link
// <hash>.gcroot, when every one of the two that is there, of its kind
// (a directory, a symbolic link) and the user's, was last changed more
// than staleAfter ago. Nothing else is ever named: not a file or a link
// in place of a copy's directory, not a directory in place of a root,
// not another user's entry, not a name of another pattern.
func (c *cache) staleCopies(names []string, current string, now time.Time) []string {
	type copyEntries struct {
		names []string
		fresh bool
	}
	byHash := map[string]*copyEntries{}
	var order []string
	for _, n := range names {
		hash, isRoot := strings.CutSuffix(n, rootSuffix)
		if !isCopyName(hash) || hash == current {
			continue
		}
		want := uint32(syscall.S_IFDIR)
		if isRoot {
			want = syscall.S_IFLNK
		}
		var st syscall.Stat_t
		if lstatAt(c.fd, n, &st) != nil || st.Mode&syscall.S_IFMT != want || int(st.Uid) != c.uid {
			continue
		}
		e := byHash[hash]
		if e == nil {
			e = &copyEntries{}
			byHash[hash] = e
			order = append(order, hash)
		}
		e.names = append(e.names, n)
		e.fresh = e.fresh || now.Sub(time.Unix(st.Mtim.Unix())) < staleAfter
	}
	var out []string
	for _, h := range order {
		if !byHash[h].fresh {
			out = append(out, byHash[h].names...)
		}
	}
	return out
}

// touch sets the mtime of name in the cache root to now: the copy's last
// use. A failure costs at most its removal after staleAfter, and a new
// copy on the next run.
func (c *cache) touch(name string) {
	utimesAt(c.fd, name, nil)
}

// _O_PATH and _AT_SYMLINK_NOFOLLOW are Linux's values on every
// architecture; package syscall does not export them on all.
const (
	_O_PATH              = 0x200000
	_AT_SYMLINK_NOFOLLOW = 0x100
)

// lstatAt is fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW): the entry itself,
// a link not followed (package syscall has no fstatat on every
// architecture; an O_PATH open of the entry does the same on each).
func lstatAt(dirfd int, name string, st *syscall.Stat_t) error {
	fd, err := syscall.Openat(dirfd, name, _O_PATH|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Fstat(fd, st)
}

// utimesAt sets the access and modification times of name in dirfd, a
// link itself and not its target, to ts (nil: now): utimensat(2), which
// package syscall keeps to itself.
func utimesAt(dirfd int, name string, ts *[2]syscall.Timespec) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(ts)), _AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
