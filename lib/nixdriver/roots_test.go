package nixdriver

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRemoveStaleRoots: the root directory of a run killed with SIGKILL
// (a helper process: this test binary, run again) and one an earlier
// version left (no lock file) are removed by the next run, which says
// so once; a live run's directory (this process's) is left alone.
func TestRemoveStaleRoots(t *testing.T) {
	if os.Getenv("CRFF_ROOTS_HELPER") == "1" {
		d, err := newRootDir()
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(d.path + "\n")
		select {} // killed here
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// No registered roots: the machine's own are not this test's.
	t.Setenv("NIX_STATE_DIR", t.TempDir())
	helper, dead := testenv.StartHelper(t, "TestRemoveStaleRoots", "CRFF_ROOTS_HELPER")
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	old := filepath.Join(tmp, rootDirPrefix+"old")
	if err := os.Mkdir(old, 0o700); err != nil {
		t.Fatal(err)
	}
	live, err := newRootDir()
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	var log bytes.Buffer
	if n := RemoveStaleRoots(slog.New(slog.NewTextHandler(&log, nil))); n != 2 {
		t.Errorf("removed %d directories, want 2 (the killed run's, the old one)", n)
	}
	for _, d := range []string{dead, old} {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s is left", d)
		}
	}
	if _, err := os.Lstat(filepath.Join(live.path, ownerLock)); err != nil {
		t.Errorf("the live run's directory was removed: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "removed the GC roots of runs that died") || !strings.Contains(lines[0], "directories=2") {
		t.Errorf("log: %q", log.String())
	}
	if _, err := os.ReadDir(tmp); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveStaleRootsRegistered: the root directories of dead runs with
// another TMPDIR are found through the links Nix registered in
// $NIX_STATE_DIR/gcroots/auto, and removed (one counted once, though
// two links point into it); a live run's directory, a directory of
// another name, a symlink named like a root directory (to a directory
// that must survive), under root another user's directory, and what any
// daemon client could register (a directory of this user's with a file
// in it, one without a lock file, one behind a linked parent) are left
// alone. Before: only $TMPDIR was searched, and none was removed.
func TestRemoveStaleRootsRegistered(t *testing.T) {
	state := t.TempDir()
	auto := filepath.Join(state, "gcroots", "auto")
	must(t, os.MkdirAll(auto, 0o755))
	t.Setenv("NIX_STATE_DIR", state)
	t.Setenv("TMPDIR", t.TempDir()) // this run's: empty
	other := t.TempDir()            // the dead runs'
	link := func(target string) {
		t.Helper()
		must(t, os.Symlink(target, filepath.Join(auto, filepath.Base(filepath.Dir(target))+"-"+filepath.Base(target))))
	}
	mkdir := func(path string) string {
		t.Helper()
		must(t, os.MkdirAll(path, 0o700))
		return path
	}
	// A dead run's: a lock file no one holds, two roots.
	dead := mkdir(filepath.Join(other, rootDirPrefix+"dead"))
	must(t, os.WriteFile(filepath.Join(dead, ownerLock), []byte("pid 1\n"), 0o600))
	link(filepath.Join(dead, "batch-000"))
	link(filepath.Join(dead, "batch-000-2"))
	// A live run's, made in the other TMPDIR.
	t.Setenv("TMPDIR", other)
	live, err := newRootDir()
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	t.Setenv("TMPDIR", t.TempDir())
	link(filepath.Join(live.path, "batch-000"))
	// Not ours to touch: another name; a symlink in a root directory's
	// name to a directory of something else.
	result := mkdir(filepath.Join(other, "nix-build-1", "keep"))
	link(filepath.Join(filepath.Dir(result), "result"))
	victim := mkdir(filepath.Join(other, "victim"))
	must(t, os.Symlink(victim, filepath.Join(other, rootDirPrefix+"link")))
	link(filepath.Join(other, rootDirPrefix+"link", "batch-000"))
	var theirs string
	if os.Geteuid() == 0 {
		theirs = mkdir(filepath.Join(other, rootDirPrefix+"theirs"))
		must(t, os.Chown(theirs, 65534, 65534))
		link(filepath.Join(theirs, "batch-000"))
	}
	// Registered by anyone (a daemon takes any path): a directory of this
	// user's that no run made (a file in it, no lock file); one with no
	// lock file but only links; and one reached through a linked parent
	// whose lock file is a dangling link.
	notes := mkdir(filepath.Join(other, "src", rootDirPrefix+"notes"))
	must(t, os.WriteFile(filepath.Join(notes, "precious.txt"), []byte("x"), 0o600))
	link(filepath.Join(notes, "whatever"))
	unlocked := mkdir(filepath.Join(other, rootDirPrefix+"unlocked"))
	must(t, os.Symlink("/nix/store/x", filepath.Join(unlocked, "batch-000")))
	link(filepath.Join(unlocked, "batch-000"))
	behind := mkdir(filepath.Join(other, "real", rootDirPrefix+"behind"))
	must(t, os.Symlink("/nonexistent", filepath.Join(behind, ownerLock)))
	must(t, os.Symlink(filepath.Join(other, "real"), filepath.Join(other, "parent-link")))
	link(filepath.Join(other, "parent-link", rootDirPrefix+"behind", "batch-000"))
	// A link that is no absolute path, and a dangling one.
	must(t, os.Symlink("relative/"+rootDirPrefix+"x/batch-000", filepath.Join(auto, "relative")))
	link(filepath.Join(other, rootDirPrefix+"gone", "batch-000"))

	var log bytes.Buffer
	if n := RemoveStaleRoots(slog.New(slog.NewTextHandler(&log, nil))); n != 1 {
		t.Errorf("removed %d directories, want 1 (the dead run's)", n)
	}
	if _, err := os.Lstat(dead); err == nil {
		t.Errorf("the dead run's directory %s is left", dead)
	}
	for _, keep := range []string{filepath.Join(live.path, ownerLock), result, victim, filepath.Join(other, rootDirPrefix+"link"), theirs,
		filepath.Join(notes, "precious.txt"), filepath.Join(unlocked, "batch-000"), filepath.Join(behind, ownerLock)} {
		if _, err := os.Lstat(keep); keep != "" && err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "removed the GC roots of runs that died") || !strings.Contains(lines[0], "directories=1") {
		t.Errorf("log: %q", log.String())
	}
}
