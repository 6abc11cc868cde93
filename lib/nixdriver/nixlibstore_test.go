package nixdriver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	_, err := r.evalCLI(context.Background(), []byte(`{"system":null,"manifests":[],"index":null,"archivesOnly":true}`), false, &stderr)
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
	lib, _ := nixlib.Files(NixLibOutside())
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
	_, err := FindNixLib("")
	testHookAfterExtract = nil
	t.Logf("swapped before the copy: %v", err)
	if err != nil && !strings.Contains(err.Error(), "store path mismatch") {
		t.Fatalf("a library swapped before its copy into the store: %v", err)
	}
	// The run after it finds the changed copy and writes it again.
	lib, err := FindNixLib("")
	if err != nil {
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

// TestAddCheckedRefusesOtherBytes: a directory whose NAR is not the
// library's, added under the library's hash, is refused by Nix ("store
// path mismatch"), as a cli.nix swapped between the cache's check and the
// copy into the store would be (a name no store holds, so that Nix reads
// the directory). The library's own bytes are taken, at the path
// nixlib.StorePath computes.
func TestAddCheckedRefusesOtherBytes(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, err := nixlib.Extract(filepath.Join(t.TempDir(), nixlib.CacheName), NixLibOutside())
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := nixlib.Files(NixLibOutside())
	narHash, err := nixlib.NarHash(lib)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("crff-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	got, err := addChecked(context.Background(), dir, name, narHash)
	if want := nixlib.StorePath(nixStoreDir(), name, narHash); err != nil || got != want {
		t.Fatalf("the library's bytes: %q %v, want %s", got, err, want)
	}
	swap(t, dir)
	name += "-swapped"
	got, err = addChecked(context.Background(), dir, name, narHash)
	if err == nil || !strings.Contains(err.Error(), "store path mismatch") {
		t.Fatalf("swapped bytes: %q %v, want Nix's store path mismatch", got, err)
	}
}

// TestConcurrentFirstRunsEvaluate is issue 37's parallel CI jobs: six
// processes (this test binary again) find the library on an empty cache
// at once, then evaluate it. A gate starts them together: each says it is
// ready, then waits for a shared lock on the gate that this test holds
// exclusively until all are ready. All succeed (before: some failed with
// "replacing the changed …: directory not empty"); three rounds.
func TestConcurrentFirstRunsEvaluate(t *testing.T) {
	if os.Getenv("CRFF_NIXLIB_RUN") == "1" {
		concurrentRun(t)
		return
	}
	testenv.RequireNix(t, "nix-instantiate")
	const runs, rounds = 6, 3
	for round := range rounds {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		results := t.TempDir()
		t.Setenv("CRFF_NIXLIB_RESULTS", results)
		gate, err := os.Create(filepath.Join(results, "gate"))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(gate.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		var helpers []*exec.Cmd
		for range runs {
			helper, line := testenv.StartHelper(t, "TestConcurrentFirstRunsEvaluate", "CRFF_NIXLIB_RUN")
			if line != "ready" {
				t.Fatalf("helper: %q", line)
			}
			helpers = append(helpers, helper)
		}
		gate.Close() // all start
		for i, h := range helpers {
			if err := h.Wait(); err != nil {
				msg, _ := os.ReadFile(filepath.Join(results, strconv.Itoa(h.Process.Pid)))
				t.Errorf("round %d, run %d: %v: %s", round, i, err, msg)
			}
		}
	}
}

// concurrentRun is one run of TestConcurrentFirstRunsEvaluate: it waits
// at the gate, finds the library and evaluates it, and leaves its error
// in the results directory under its pid.
func concurrentRun(t *testing.T) {
	results := os.Getenv("CRFF_NIXLIB_RESULTS")
	gate, err := os.Open(filepath.Join(results, "gate"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	if err := syscall.Flock(int(gate.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	lib, err := FindNixLib("")
	if err == nil {
		err = evalEmptyRun(t, lib)
	}
	if err != nil {
		os.WriteFile(filepath.Join(results, strconv.Itoa(os.Getpid())), []byte(err.Error()), 0o644)
		t.Fatal(err)
	}
}
