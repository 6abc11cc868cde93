package nixdriver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// swappedCLI is what another user puts in place of cli.nix.
const swappedCLI = `{ argsFile }: throw "evaluated the swapped cli.nix"`

// evalEmptyRun evaluates cli.nix of lib over no manifest (the archives
// alone), as a run's first evaluation does.
func evalEmptyRun(t *testing.T, lib string) error {
	t.Helper()
	r := &Runner{NixLib: lib}
	var stderr strings.Builder
	_, err := r.evalCLI(context.Background(), []byte(`{"program":"/bin/sh","detectorProgram":null,"aggregateProgram":null,"system":null,"manifests":[],"index":null,"archivesOnly":true}`), false, &stderr)
	if err != nil {
		return &evalErr{err, stderr.String()}
	}
	return nil
}

type evalErr struct {
	err    error
	stderr string
}

func (e *evalErr) Error() string { return e.err.Error() + ": " + e.stderr }

// libraryDir is the one library directory under the cache root.
func libraryDir(t *testing.T, cacheRoot string) string {
	t.Helper()
	lib, _ := nixlib.Files()
	return filepath.Join(cacheRoot, nixlib.Hash(lib))
}

// swap replaces the cache's cli.nix, as its other writer would.
func swap(t *testing.T, dir string) {
	t.Helper()
	cli := filepath.Join(dir, "nix", "cli.nix")
	os.Chmod(cli, 0o644)
	if err := os.WriteFile(cli, []byte(swappedCLI), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEmbeddedLibraryIsEvaluatedFromTheStore is issue 37's swap: another
// user who could write the cache swapped cli.nix between its check and
// its evaluation, and root's run evaluated their code. The library is
// now evaluated from its store copy, whose name is the hash of the bytes
// the binary carries: a swap before the copy (the test hook) fails Nix's
// hash check or goes unread (the copy is in the store already), and one
// after it changes nothing Nix reads. Before: the swapped file was
// evaluated.
func TestEmbeddedLibraryIsEvaluatedFromTheStore(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	root := filepath.Join(cache, nixlib.CacheName)
	testHookAfterExtract = func(dir string) { swap(t, dir) }
	lib, err := FindNixLib("")
	testHookAfterExtract = nil
	t.Logf("swapped before the copy: %v", err)
	if err != nil && !strings.Contains(err.Error(), "store path mismatch") {
		t.Fatalf("a library swapped before its copy into the store: %v", err)
	}
	// The run after it finds the changed copy and writes it again.
	if lib, err = FindNixLib(""); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lib, nixStoreDir()+"/") {
		t.Errorf("the library evaluated is %s, not in the store", lib)
	}
	swap(t, libraryDir(t, root))
	if err := evalEmptyRun(t, lib); err != nil {
		t.Fatalf("evaluating the library after the cache's cli.nix was swapped: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(lib, "cli.nix"))
	want, _ := os.ReadFile(filepath.Join(testenv.RepoRoot(), "nix", "cli.nix"))
	if err != nil || string(got) != string(want) {
		t.Errorf("the store's cli.nix is not the binary's: %v", err)
	}
	// The GC root keeps it; the next run asks Nix nothing.
	if target, err := os.Readlink(libraryDir(t, root) + ".gcroot"); err != nil || target != filepath.Dir(lib) {
		t.Errorf("GC root: %q %v, want a link to %s", target, err, filepath.Dir(lib))
	}
}

// TestConcurrentFirstRunsEvaluate is issue 37's parallel CI jobs, through
// the whole path: rounds of 6 runs that find the library on an empty
// cache at once, then evaluate it. All succeed (before: some failed
// with "replacing the changed …: directory not empty").
func TestConcurrentFirstRunsEvaluate(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	const runs, rounds = 6, 3
	for round := range rounds {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, runs)
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				lib, err := FindNixLib("")
				if err == nil {
					err = evalEmptyRun(t, lib)
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, run %d: %v", round, i, err)
			}
		}
	}
}
