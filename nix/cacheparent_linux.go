package nixlib

import (
	"fmt"
	"syscall"
)

// The directory that holds a cache of the user's ($XDG_CACHE_HOME,
// ~/.cache: the parent of the Nix library's cache, and of nixdriver's
// witnesses of unpacked trees) has one rule, here: it may be a symbolic
// link of the user's own choosing (~/.cache often is), and must belong to
// the user or to root and be writable by no one else unless it is sticky
// (/tmp as XDG_CACHE_HOME). Whoever can rename entries there can swap the
// cache itself. nixdriver imports it (lib/ may import nix/, never the
// reverse: docs/layout.md).

// UnsafeError is a cache directory or entry the user does not own alone,
// or a parent of one that another user can change: refused, not
// repaired.
type UnsafeError struct {
	Path   string
	Reason string
	Fix    string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s %s; %s", e.Path, e.Reason, e.Fix)
}

// CheckCacheParent applies the parent rule to the directory dir, through
// a link when dir is one: nil, an *UnsafeError, or the error opening it.
func CheckCacheParent(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	defer syscall.Close(fd)
	return checkParentFd(fd, dir, syscall.Geteuid())
}

// checkParentFd applies the parent rule to the open directory fd, named
// dir, for the user uid.
func checkParentFd(fd int, dir string, uid int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if int(st.Uid) != uid && st.Uid != 0 {
		return &UnsafeError{dir, fmt.Sprintf("(the cache directory's parent) is owned by uid %d, not by you (uid %d) or root", st.Uid, uid),
			"set XDG_CACHE_HOME to a directory of your own"}
	}
	if st.Mode&0o022 != 0 && st.Mode&syscall.S_ISVTX == 0 {
		return &UnsafeError{dir, fmt.Sprintf("(the cache directory's parent) is writable by its group or others (mode %04o) and not sticky", st.Mode&0o7777),
			fmt.Sprintf("run chmod go-w %s, or set XDG_CACHE_HOME to a directory of your own", dir)}
	}
	return nil
}
