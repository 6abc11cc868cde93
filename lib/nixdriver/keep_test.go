package nixdriver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// storeDir adds a directory of two files, new to the store, and returns
// its store path.
func storeDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("nix-store"); err != nil {
		testenv.Unavailable(t, "Nix is not installed: no nix-store (apt-get install nix-bin)", "CRFF_REQUIRE_NIX")
	}
	src := filepath.Join(t.TempDir(), "keep-test")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"index.json": "{}\n", "detail.json": t.Name() + time.Now().String()} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("nix-store", "--add", src).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestKeepOutput: the link is made and is a GC root; a second call
// leaves it alone; a file in its place is not replaced.
func TestKeepOutput(t *testing.T) {
	out := storeDir(t)
	ctx := context.Background()
	r := &Runner{}
	link := filepath.Join(t.TempDir(), "sub", "aggregate_1")
	if changed, err := r.KeepOutput(ctx, out, link); err != nil || !changed {
		t.Fatalf("first: %v %v", changed, err)
	}
	if rooted, err := isRootOf(ctx, out, link); err != nil || !rooted {
		t.Errorf("not a root: %v %v", rooted, err)
	}
	before, _ := os.Lstat(link)
	if changed, err := r.KeepOutput(ctx, out, link); err != nil || changed {
		t.Fatalf("second: %v %v", changed, err)
	}
	if after, _ := os.Lstat(link); !os.SameFile(before, after) {
		t.Error("second call remade the link")
	}
	file := filepath.Join(t.TempDir(), "aggregate_2")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.KeepOutput(ctx, out, file); err == nil || !strings.Contains(err.Error(), "not a symlink") {
		t.Errorf("a file in the link's place: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Error("the file was replaced")
	}
}

// TestKeepOutputReplacesAnyLink: a symlink in the link's place, dangling
// (relative, or to a path outside the store, which nix-store --add-root
// refuses: "already exists") or to another directory, is replaced by the
// rooted link to out, and nothing is left beside it; a directory is
// refused by name and left as it is.
func TestKeepOutputReplacesAnyLink(t *testing.T) {
	out := storeDir(t)
	ctx := context.Background()
	r := &Runner{}
	for name, target := range map[string]string{
		"dangling relative": "aggregate_gone",
		"dangling absolute": "/nonexistent/crff-keep-test",
		"another directory": t.TempDir(),
		"a gone store path": "/nix/store/00000000000000000000000000000000-gone",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			link := filepath.Join(dir, "aggregate_1.0.0")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if changed, err := r.KeepOutput(ctx, out, link); err != nil || !changed {
				t.Fatalf("KeepOutput over a link to %s: %v %v", target, changed, err)
			}
			if cur, err := os.Readlink(link); err != nil || cur != out {
				t.Errorf("link points at %q (%v), want %s", cur, err, out)
			}
			if rooted, err := isRootOf(ctx, out, link); err != nil || !rooted {
				t.Errorf("not a root: %v %v", rooted, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("left beside the link: %v", entries)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "aggregate_2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.KeepOutput(ctx, out, dir); err == nil || !strings.Contains(err.Error(), "is not a symlink (a directory)") {
		t.Errorf("a directory in the link's place: %v", err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Errorf("the directory was replaced: %v", err)
	}
}

// TestCopyOutput: the files are copied; a second call writes nothing
// (mtimes kept); a file the output lacks is removed; a symlink in the
// directory's place (a local run's link) is replaced by the copy.
func TestCopyOutput(t *testing.T) {
	out := storeDir(t)
	ctx := context.Background()
	r := &Runner{}
	dir := filepath.Join(t.TempDir(), "aggregate_1")
	must(t, os.Symlink(out, dir))
	if changed, err := r.CopyOutput(ctx, out, dir); err != nil || !changed {
		t.Fatalf("first: %v %v", changed, err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("not a directory: %v", err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, name := range []string{"index.json", "detail.json"} {
		want, _ := os.ReadFile(filepath.Join(out, name))
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if string(got) != string(want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
		must(t, os.Chtimes(filepath.Join(dir, name), old, old))
	}
	if changed, err := r.CopyOutput(ctx, out, dir); err != nil || changed {
		t.Fatalf("second: %v %v", changed, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "index.json")); !fi.ModTime().Equal(old) {
		t.Error("second call rewrote index.json")
	}
	stale := filepath.Join(dir, "buildRedist.json")
	must(t, os.WriteFile(stale, []byte("{}"), 0o644))
	if changed, err := r.CopyOutput(ctx, out, dir); err != nil || !changed {
		t.Fatalf("third: %v %v", changed, err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a file the output lacks was kept")
	}
}
