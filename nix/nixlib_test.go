package nixlib

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestExtractWritesTheLibraryOnce: the embedded library lands under
// cacheRoot/<hash> in the repository's layout (nix/cli.nix and
// ../lib/manifest/keys.json), equal to the checkout's files; a second
// call reuses it; the user's own changed copy is replaced, not trusted.
func TestExtractWritesTheLibraryOnce(t *testing.T) {
	root := filepath.Join(t.TempDir(), CacheName)
	dir, err := Extract(root, checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	nixDir := filepath.Join(dir, "nix")
	for _, rel := range []string{"cli.nix", "pipeline.nix", "buildredist-standin.nix", "../lib/manifest/keys.json", "../lib/manifest/base-urls.json"} {
		got, err := os.ReadFile(filepath.Join(nixDir, rel))
		if err != nil {
			t.Fatalf("extracted library: %v", err)
		}
		want, err := os.ReadFile(filepath.Join(".", rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the checkout's", rel)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".tmp-*")); len(left) != 0 {
		t.Errorf("temporary directories left: %v", left)
	}
	cli := filepath.Join(nixDir, "cli.nix")
	before, _ := os.Stat(cli)
	again, err := Extract(root, checkoutOutside(t))
	if err != nil || again != dir {
		t.Fatalf("second Extract: %q %v, want %q", again, err, dir)
	}
	if after, _ := os.Stat(cli); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second Extract rewrote the library")
	}
	os.Chmod(cli, 0o644)
	os.WriteFile(cli, []byte("changed"), 0o644)
	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(cli); string(got) == "changed" {
		t.Errorf("a changed library was reused")
	}
	// An extra file changes the NAR hash: replaced too.
	os.WriteFile(filepath.Join(nixDir, "extra.nix"), nil, 0o444)
	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(nixDir, "extra.nix")); err == nil {
		t.Errorf("a library with an extra file was reused")
	}
}

// wantUnsafe fails t unless err is an UnsafeError naming path and
// saying want.
func wantUnsafe(t *testing.T, err error, path, want string) {
	t.Helper()
	var u *UnsafeError
	if !errors.As(err, &u) || u.Path != path || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want the cache refused: %s %s", err, path, want)
	}
}

// TestExtractRefusesLinks is issue 37's planted link: a link at
// cuda-redist-find-features made a run write into the directory of the
// link's choosing. Now the link is refused by name and that directory is
// left empty; so is a link in place of the library's directory or one
// of its files.
func TestExtractRefusesLinks(t *testing.T) {
	parent, victim := t.TempDir(), t.TempDir()
	root := filepath.Join(parent, CacheName)
	if err := os.Symlink(victim, root); err != nil {
		t.Fatal(err)
	}
	_, err := Extract(root, checkoutOutside(t))
	wantUnsafe(t, err, root, "is a symbolic link")
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Errorf("the link's target was written: %v", entries)
	}

	root = filepath.Join(t.TempDir(), CacheName)
	dir, err := Extract(root, checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	// cli.nix as a link to a copy with the same bytes, elsewhere.
	copyDir := t.TempDir()
	cli := filepath.Join(dir, "nix", "cli.nix")
	data, _ := os.ReadFile(cli)
	os.WriteFile(filepath.Join(copyDir, "cli.nix"), data, 0o444)
	os.Remove(cli)
	os.Symlink(filepath.Join(copyDir, "cli.nix"), cli)
	_, err = Extract(root, checkoutOutside(t))
	wantUnsafe(t, err, cli, "is a symbolic link")
	// The library's directory as a link to a good copy.
	os.Rename(dir, filepath.Join(copyDir, "lib"))
	os.Symlink(filepath.Join(copyDir, "lib"), dir)
	_, err = Extract(root, checkoutOutside(t))
	wantUnsafe(t, err, dir, "is a symbolic link")
}

// TestExtractRefusesWhatOthersCanWrite: a cache root, or a directory
// or file of the library, that its group or others can write is refused
// with the chmod that fixes it; so is a parent others can write that is
// not sticky. A sticky one (/tmp) is fine.
func TestExtractRefusesWhatOthersCanWrite(t *testing.T) {
	root := filepath.Join(t.TempDir(), CacheName)
	dir, err := Extract(root, checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{
		{root, 0o777},
		{root, 0o770},
		{filepath.Join(dir, "lib", "manifest"), 0o757},
		{filepath.Join(dir, "nix", "cli.nix"), 0o464},
	} {
		st, _ := os.Stat(c.path)
		if err := os.Chmod(c.path, c.mode); err != nil {
			t.Fatal(err)
		}
		_, err := Extract(root, checkoutOutside(t))
		wantUnsafe(t, err, c.path, "writable by its group or others")
		if !strings.Contains(err.Error(), "chmod -R go-w "+root) {
			t.Errorf("%v: no fix given", err)
		}
		os.Chmod(c.path, st.Mode().Perm())
	}
	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatalf("after the fix: %v", err)
	}

	parent := t.TempDir()
	os.Chmod(parent, 0o777)
	_, err = Extract(filepath.Join(parent, CacheName), checkoutOutside(t))
	wantUnsafe(t, err, parent, "not sticky")
	os.Chmod(parent, 0o777|os.ModeSticky)
	if _, err := Extract(filepath.Join(parent, CacheName), checkoutOutside(t)); err != nil {
		t.Errorf("in a sticky directory: %v", err)
	}
}

// otherUID is a user that is not the test's.
const otherUID = 65534

// requireRoot skips unless the test may give files to another user.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the cache to another user (os.Chown); CI runs the tests as root")
	}
}

// TestExtractRefusesAnotherUsersCache: root's run with a cache root, a
// directory or a file of the library, or the cache's parent that another
// user owns refuses it, names it, and leaves it as it was (not "fixed":
// a root that took it over would write where that user chose).
func TestExtractRefusesAnotherUsersCache(t *testing.T) {
	requireRoot(t)
	root := filepath.Join(t.TempDir(), CacheName)
	dir, err := Extract(root, checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, dir, filepath.Join(dir, "nix"), filepath.Join(dir, "nix", "cli.nix")} {
		if err := os.Lchown(p, otherUID, otherUID); err != nil {
			t.Fatal(err)
		}
		_, err := Extract(root, checkoutOutside(t))
		wantUnsafe(t, err, p, "is owned by uid 65534, not by you (uid 0)")
		var st syscall.Stat_t
		if syscall.Lstat(p, &st); st.Uid != otherUID {
			t.Errorf("%s: owner changed to %d", p, st.Uid)
		}
		os.Lchown(p, 0, 0)
	}

	// Another user's fresh cache: a root's run writes nothing there.
	root = filepath.Join(t.TempDir(), CacheName)
	os.Mkdir(root, 0o755)
	os.Chown(root, otherUID, otherUID)
	_, err = Extract(root, checkoutOutside(t))
	wantUnsafe(t, err, root, "is owned by uid 65534")
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("another user's cache was written: %v", entries)
	}

	// Another user's home: the cache's parent.
	home := t.TempDir()
	os.Chown(home, otherUID, otherUID)
	_, err = Extract(filepath.Join(home, CacheName), checkoutOutside(t))
	wantUnsafe(t, err, home, "is owned by uid 65534, not by you (uid 0) or root")
}

// TestExtractConcurrentFirstRuns is issue 37's parallel CI jobs: many
// first runs at once on an empty cache. All succeed, with the same
// checked directory (before: "replacing the changed …: directory not
// empty" for some). Rounds of 8 at once, each started together.
func TestExtractConcurrentFirstRuns(t *testing.T) {
	const runs, rounds = 8, 10
	outside := checkoutOutside(t)
	for round := range rounds {
		root := filepath.Join(t.TempDir(), CacheName)
		var wg sync.WaitGroup
		start := make(chan struct{})
		dirs, errs := make([]string, runs), make([]error, runs)
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				dirs[i], errs[i] = Extract(root, outside)
			}()
		}
		close(start)
		wg.Wait()
		for i := range runs {
			if errs[i] != nil || dirs[i] != dirs[0] {
				t.Fatalf("round %d, run %d: %q %v (run 0: %q)", round, i, dirs[i], errs[i], dirs[0])
			}
		}
		if left, _ := filepath.Glob(filepath.Join(root, ".tmp-*")); len(left) != 0 {
			t.Errorf("round %d: left %v", round, left)
		}
	}
}

// TestExtractRemovesLeftovers: the .tmp-* of a writer that died (its
// lock is free) are removed, also when the library is there already; one
// seen while a writer holds the lock may be that writer's and stays. So
// does an old copy of another version (TestExtractRemovesOldCopies), gone
// once the lock is free.
func TestExtractRemovesLeftovers(t *testing.T) {
	root := filepath.Join(t.TempDir(), CacheName)
	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(root, ".tmp-0123456789abcdef")
	os.MkdirAll(filepath.Join(dead, "nix"), 0o755)
	os.WriteFile(filepath.Join(dead, "nix", "cli.nix"), []byte("half"), 0o444)
	os.WriteFile(filepath.Join(root, ".tmp-file"), nil, 0o444)
	stale := filepath.Join(root, "0123456789abcdef0123456789abcdef")
	os.Mkdir(stale, 0o755)
	setOld(t, stale, 2*staleAfter)

	lock, err := os.OpenFile(filepath.Join(root, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err != nil {
		t.Errorf("a live writer's directory was removed")
	}
	if _, err := os.Lstat(stale); err != nil {
		t.Errorf("an old copy was removed while another run held the lock: %v", err)
	}
	lock.Close()

	if _, err := Extract(root, checkoutOutside(t)); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".tmp-*")); len(left) != 0 {
		t.Errorf("leftovers not removed: %v", left)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("an old copy not removed once the lock was free: %v", err)
	}
}

// TestNarHashIsNixs: NarHash of the library is what nix-hash says of
// the directory Extract wrote (the hash builtins.path checks the store
// copy against).
func TestNarHashIsNixs(t *testing.T) {
	if _, err := exec.LookPath("nix-hash"); err != nil {
		t.Skip("nix-hash not on PATH")
	}
	dir, err := Extract(filepath.Join(t.TempDir(), CacheName), checkoutOutside(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nix-hash", "--type", "sha256", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := Files(checkoutOutside(t))
	h, err := NarHash(lib)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), fmt.Sprintf("%x", h); got != want {
		t.Errorf("nix-hash %s, NarHash %s", got, want)
	}
}

// checkoutOutside are the files library-files.txt lists, read from the
// checkout (the binary's caller gives them from the packages that embed
// them: nixdriver.NixLibOutside).
func checkoutOutside(t *testing.T) map[string][]byte {
	t.Helper()
	listed, err := Outside()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, n := range listed {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// TestFilesTakesExactlyTheListedOutsideFiles: a file library-files.txt
// lists and the caller does not give, or one it gives unlisted, is an
// error naming it; given the list, the library holds them at their paths.
func TestFilesTakesExactlyTheListedOutsideFiles(t *testing.T) {
	outside := checkoutOutside(t)
	if len(outside) == 0 {
		t.Fatal("library-files.txt lists nothing")
	}
	lib, err := Files(outside)
	if err != nil {
		t.Fatal(err)
	}
	for n := range outside {
		if _, ok := lib[n]; !ok {
			t.Errorf("library lacks %s", n)
		}
	}
	missing := map[string][]byte{}
	var dropped string
	for n, b := range outside {
		if dropped == "" {
			dropped = n
			continue
		}
		missing[n] = b
	}
	missing["lib/other.json"] = []byte("{}")
	if _, err := Files(missing); err == nil || !strings.Contains(err.Error(), dropped) {
		t.Errorf("Files without %s: %v, want it named", dropped, err)
	}
	extra := map[string][]byte{"lib/other.json": []byte("{}")}
	for n, b := range outside {
		extra[n] = b
	}
	if _, err := Files(extra); err == nil {
		t.Errorf("Files with an unlisted file: no error")
	}
}
