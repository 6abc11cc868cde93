//go:build linux

package nixlib

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// setOld sets the times of p, a link itself and not its target, to age
// ago.
func setOld(t *testing.T, p string, age time.Duration) {
	t.Helper()
	ts := syscall.NsecToTimespec(time.Now().Add(-age).UnixNano())
	if err := utimesAt(_AT_FDCWD, p, &[2]syscall.Timespec{ts, ts}); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

// _AT_FDCWD: paths relative to the working directory (absolute here).
const _AT_FDCWD = -100

// TestExtractRemovesOldCopies: the copies an older version of the tool
// wrote, and their GC root links, grew the cache with each upgrade. Now a
// copy no run used for staleAfter is removed with its root, following no
// link (what a link points at, inside the copy or as its root, stays); the
// current copy is kept however old (and touched), and so are a copy used
// lately, every name of another pattern, and an entry of a copy's name
// but not its kind.
func TestExtractRemovesOldCopies(t *testing.T) {
	root := filepath.Join(t.TempDir(), CacheName)
	current, err := Extract(root, checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	old := 2 * staleAfter
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep")
	if err := os.WriteFile(keep, []byte("not the cache's"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(n string) string { return filepath.Join(root, n) }
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}

	// An older version's copy, with a link out of it, and its root.
	stale := at("0123456789abcdef0123456789abcdef")
	mkdir(filepath.Join(stale, "nix"))
	os.WriteFile(filepath.Join(stale, "nix", "cli.nix"), []byte("old"), 0o444)
	link(outside, filepath.Join(stale, "nix", "out"))
	link(outside, stale+rootSuffix)
	// A root whose copy is gone.
	orphanRoot := at("11111111111111111111111111111111" + rootSuffix)
	link(outside, orphanRoot)
	// A copy used lately, with an old root.
	recent := at("fedcba9876543210fedcba9876543210")
	mkdir(recent)
	link(outside, recent+rootSuffix)
	// Not the cache's: other names, and a copy's name but not its kind.
	foreign := []string{at("notes.txt"), at("0123456789abcdef0123456789abcdeg"), at("0123456789ABCDEF0123456789ABCDEF"),
		at("22222222222222222222222222222222.bak"), at("33333333333333333333333333333333"), at("44444444444444444444444444444444"),
		at("55555555555555555555555555555555" + rootSuffix)}
	os.WriteFile(foreign[0], nil, 0o644)
	mkdir(foreign[1])
	mkdir(foreign[2])
	os.WriteFile(foreign[3], nil, 0o644)
	os.WriteFile(foreign[4], nil, 0o644) // a file of a copy's name
	link(outside, foreign[5])            // a link of a copy's name
	mkdir(foreign[6])                    // a directory of a root's name

	for _, p := range append([]string{stale, filepath.Join(stale, "nix", "out"), stale + rootSuffix, orphanRoot, recent + rootSuffix, current, outside}, foreign...) {
		setOld(t, p, old)
	}
	currentRoot := current + rootSuffix
	link(outside, currentRoot)
	setOld(t, currentRoot, old)

	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{stale, stale + rootSuffix, orphanRoot} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s: not removed (%v)", gone, err)
		}
	}
	for _, kept := range append([]string{current, currentRoot, recent, recent + rootSuffix, keep}, foreign...) {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s: removed (%v)", kept, err)
		}
	}
	if st, err := os.Stat(current); err != nil || time.Since(st.ModTime()) > time.Hour {
		t.Errorf("the current copy was not touched: %v", err)
	}
}
