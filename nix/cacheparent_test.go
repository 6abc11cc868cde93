//go:build linux

package nixlib

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckCacheParent: the directory holding a cache may be the user's
// link, sticky though all can write it (/tmp), or root's (/); one that
// its group or others can write and is not sticky, or that another user
// owns, is refused with its name, the reason and the fix.
func TestCheckCacheParent(t *testing.T) {
	own := t.TempDir()
	os.Chmod(own, 0o755)
	link := filepath.Join(t.TempDir(), "cache")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	sticky := t.TempDir()
	os.Chmod(sticky, 0o777|os.ModeSticky)
	fine := []string{own, link, sticky}
	// "/" is root's, except in a build sandbox (the flake check's), where
	// it belongs to nobody.
	if st, err := os.Stat("/"); err == nil && st.Sys().(*syscall.Stat_t).Uid == 0 {
		fine = append(fine, "/")
	}
	for _, ok := range fine {
		if err := CheckCacheParent(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, mode := range []os.FileMode{0o777, 0o775, 0o757} {
		open := t.TempDir()
		os.Chmod(open, mode)
		err := CheckCacheParent(open)
		var perr *UnsafeError
		if !errors.As(err, &perr) || perr.Path != open || !strings.Contains(err.Error(), "not sticky") || !strings.Contains(err.Error(), "chmod go-w "+open) {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	if err := CheckCacheParent(filepath.Join(own, "missing")); err == nil {
		t.Error("a missing directory passed")
	}
	if os.Geteuid() != 0 {
		return
	}
	theirs := t.TempDir()
	os.Chown(theirs, otherUID, otherUID)
	err := CheckCacheParent(theirs)
	var perr *UnsafeError
	if !errors.As(err, &perr) || !strings.Contains(err.Error(), "owned by uid 65534, not by you (uid 0) or root") {
		t.Errorf("another user's directory: %v", err)
	}
}
