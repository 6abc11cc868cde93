package nixdriver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// distinct is how many archives TestPastArgMax adds: few, as each
// costs the store a path.
const distinct = 300

// argMax is the kernel's limit on a command line and its environment
// (Linux: 2 MiB).
const argMax = 2 << 20

// TestPastArgMax: local archives and store paths well past ARG_MAX (4
// MiB of archive paths: 300 archives, each four times; 3 MiB of store paths) go to
// Nix in batches: every archive is added once, under the store path
// --add-fixed gives it alone, and the paths are realised, checked and
// closed over. Before batches: "argument list too long".
func TestPastArgMax(t *testing.T) {
	if _, err := exec.LookPath("nix-store"); err != nil {
		testenv.Unavailable(t, "Nix is not installed: no nix-store (apt-get install nix-bin)", "CRFF_REQUIRE_NIX")
	}
	files := longPaths(t)
	files = append(files, files...) // each archive four times
	files = append(files, files...)
	if n := nixexec.ArgBytes(files...); n < 2*argMax {
		t.Fatalf("only %d bytes of paths", n)
	}
	var stderr bytes.Buffer
	// No RootDir: nothing but the store holds the paths, which are
	// deleted at the end with one nix-store --delete (one GC each).
	r := &Runner{Stderr: &stderr}
	ctx := context.Background()
	paths, err := r.AddFixed(ctx, files)
	if err != nil {
		t.Fatalf("AddFixed: %v\n%s", err, stderr.String())
	}
	defer func() {
		if out, err := exec.Command("nix-store", append([]string{"--delete"}, paths[:distinct]...)...).CombinedOutput(); err != nil {
			t.Errorf("delete the test's paths: %v\n%s", err, out)
		}
	}()
	checkAddedOnce(t, files, paths)
	// The same paths over and over: 3 MiB of store paths.
	var many []string
	for nixexec.ArgBytes(many...) < 3<<20 {
		many = append(many, paths[:distinct]...)
	}
	if err := r.Realise(ctx, many); err != nil {
		t.Fatalf("Realise of %d paths: %v\n%s", len(many), err, stderr.String())
	}
	checkValidAndClosed(t, r, many, paths[0])
}

// longPaths writes the test's distinct files, each path about 4,000
// bytes: 15 directories of 250-byte names.
func longPaths(t *testing.T) []string {
	dir := t.TempDir()
	for i := 0; i < 15; i++ {
		dir = filepath.Join(dir, fmt.Sprintf("%02d%s", i, strings.Repeat("d", 248)))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i := 0; i < distinct; i++ {
		f := filepath.Join(dir, fmt.Sprintf("argmax-%s-%03d.txt", t.Name(), i))
		if err := os.WriteFile(f, []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// checkAddedOnce: AddFixed gave a path for each of files, the same for
// each repeat of a file, named after it.
func checkAddedOnce(t *testing.T, files, paths []string) {
	t.Helper()
	if len(paths) != len(files) {
		t.Fatalf("%d paths for %d files", len(paths), len(files))
	}
	for i, p := range paths[:distinct] {
		if paths[distinct+i] != p || !strings.HasSuffix(p, filepath.Base(files[i])) {
			t.Fatalf("file %s: %s and %s", files[i], p, paths[distinct+i])
		}
	}
}

// checkValidAndClosed: Valid and Closure take the long list many of
// sources (first among them): all valid, no closure.
func checkValidAndClosed(t *testing.T, r *Runner, many []string, first string) {
	t.Helper()
	ctx := context.Background()
	valid, err := r.Valid(ctx, many)
	if err != nil || len(valid) != distinct || !valid[first] {
		t.Errorf("Valid: %d paths, %v", len(valid), err)
	}
	closure, err := Closure(ctx, many)
	if err != nil {
		t.Errorf("Closure: %v", err)
	}
	if len(closure) != 0 {
		t.Errorf("Closure of sources (no derivation): %d paths", len(closure))
	}
}
