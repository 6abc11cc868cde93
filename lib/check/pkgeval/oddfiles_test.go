package pkgeval

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFilesAccountsForOddFiles: every candidate of the packages
// directory that is not a regular file in it is one Unread naming it and
// what it is, never opened when it would block (a FIFO) or never end
// (/dev/zero) or fail (/proc/self/mem); a file over MaxFileSize is not
// read in full; the regular files are listed as usual.
func TestFilesAccountsForOddFiles(t *testing.T) {
	dir, _ := writeFiles(t, map[string]string{
		"a.nix":         "{ buildRedist }: buildRedist { }",
		"real/data.nix": "{ buildRedist }: buildRedist { }",
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.nix"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.nix")))
	must(os.Symlink("/proc/self/mem", filepath.Join(dir, "mem.nix")))
	must(os.Symlink("real/data.nix", filepath.Join(dir, "inside.nix")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling.nix")))
	must(os.Mkdir(filepath.Join(dir, "dir.nix"), 0o755)) // a directory: g.nix/package.nix is listed on its own
	must(os.Symlink("real", filepath.Join(dir, "dirlink.nix")))
	must(os.Mkdir(filepath.Join(dir, "p"), 0o755))
	must(syscall.Mkfifo(filepath.Join(dir, "p", "package.nix"), 0o644))
	big := "{ buildRedist }: buildRedist { }" + strings.Repeat(" ", MaxFileSize)
	must(os.WriteFile(filepath.Join(dir, "big.nix"), []byte(big), 0o644))

	// Hang guard only: on main, opening the FIFO blocks forever.
	done := make(chan struct{})
	var got Listing
	var err error
	go func() { got, err = Files(dir); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("hang guard: Files still running after 20 s (opened the FIFO?)")
	}
	must(err)
	if want := []string{"a.nix", "inside.nix"}; !cmp.Equal(want, got.Files) {
		t.Errorf("Files = %v, want %v", got.Files, want)
	}
	want := map[string]string{
		"big.nix":       "larger than 1048576 bytes",
		"dangling.nix":  "resolves to nothing",
		"dirlink.nix":   "a link to a directory",
		"fifo.nix":      "named pipe (FIFO)",
		"mem.nix":       "out of the packages directory (to /proc/self/mem)",
		"p/package.nix": "named pipe (FIFO)",
		"zero.nix":      "out of the packages directory (to /dev/zero)",
	}
	seen := map[string]bool{}
	for _, u := range got.Unread {
		seen[u.File] = true
		if w, ok := want[u.File]; !ok || !strings.Contains(u.Why, w) {
			t.Errorf("Unread %s: %q, want it to contain %q", u.File, u.Why, w)
		}
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("%s not accounted for: %+v", f, got.Unread)
		}
	}
}

// TestReadFileAgain: a listed file read again (by the vendored check and
// --fix) that has become a FIFO, a link to /dev/zero or a file over
// MaxFileSize since the listing is an error naming it, returned at once;
// a regular file and a link inside the directory read as they are. The
// goroutine and its timeout are a hang guard only.
func TestReadFileAgain(t *testing.T) {
	dir, _ := writeFiles(t, map[string]string{"a.nix": "text", "real/data.nix": "inner"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.nix"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero.nix": "/dev/zero", "inside.nix": "real/data.nix"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.nix"), make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for file, want := range map[string]string{"a.nix": "text", "inside.nix": "inner"} {
			if data, err := ReadFile(dir, file); err != nil || string(data) != want {
				t.Errorf("ReadFile(%s) = %q, %v; want %q", file, data, err, want)
			}
		}
		for _, file := range []string{"fifo.nix", "zero.nix", "big.nix", "gone.nix"} {
			if data, err := ReadFile(dir, file); err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("ReadFile(%s) = %d bytes, %v; want an error naming it", file, len(data), err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("hang guard: ReadFile did not return in 30 s (it opened a FIFO or read /dev/zero)")
	}
}
