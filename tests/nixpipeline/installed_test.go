package nixpipeline

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstalledBinaryOutsideTheCheckout is issue 32's "done when": a
// fresh copy of the repository's files (checkoutCopy: what a clone has),
// `CGO_ENABLED=0 go install ./cmd/...` there, then, from a directory laid
// out like a Nixpkgs checkout and far from any nix/, `cuda-redist-find-features
// check-nixpkgs --nixpkgs .` with the binary found on PATH: no --nix-lib,
// no $CRFF_NIX_LIB, no library installed beside the binary. The binary
// writes the Nix library it carries to ~/.cache once and checks the files.
func TestInstalledBinaryOutsideTheCheckout(t *testing.T) {
	requireNix(t)
	gobin, home := installedOutsideCheckout(t), t.TempDir()
	like := nixpkgsLike(t)
	// Through the shell, which finds the binary on PATH as a user's would.
	cmd := exec.Command("bash", "-c", `cuda-redist-find-features "$@"`, "bash", "check-nixpkgs", "--offline", "--hints=false", "--nix-option", "substituters=",
		"--url", "sample=file://"+filepath.Join(repoRoot(), "sample"), "--nixpkgs", ".")
	cmd.Dir = like
	cmd.Env = append(environWithout("CRFF_NIX_LIB=", "XDG_CACHE_HOME=", "HOME=", "PATH="),
		"HOME="+home, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(t, cmd.Run())
	// The examples' files have the walkthrough's errors: exit 1, each
	// named, and the summary line.
	if code != 1 || !strings.Contains(stdout.String(), "ERROR demo_samples linux-x86_64 None 1.0.0: ") ||
		!strings.Contains(stderr.String(), "checked 6 package file(s), ") {
		t.Fatalf("exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	// One copy in ~/.cache, beside the GC root link to its copy in the
	// store, which is what was evaluated.
	libs, _ := filepath.Glob(filepath.Join(home, ".cache", "cuda-redist-find-features", "*", "nix", "cli.nix"))
	var copies []string
	for _, l := range libs {
		if st, err := os.Lstat(filepath.Dir(filepath.Dir(l))); err == nil && st.IsDir() {
			copies = append(copies, l)
		}
	}
	if len(copies) != 1 || len(libs) != 2 {
		t.Errorf("Nix library in ~/.cache: %v, want one copy and its GC root", libs)
	}
}

// installedOutsideCheckout installs ./cmd/... from a fresh copy of the
// repository, which it then removes, into a new GOBIN it returns.
func installedOutsideCheckout(t *testing.T) string {
	t.Helper()
	clone := checkoutCopy(t, repoRoot())
	gobin := t.TempDir()
	install := exec.Command("go", "install", "-trimpath", "./cmd/...")
	install.Dir = clone
	install.Env = append(os.Environ(), "GOBIN="+gobin, "CGO_ENABLED=0", "GOFLAGS=-mod=vendor")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	if err := os.RemoveAll(clone); err != nil { // nothing of the checkout is left to find
		t.Fatal(err)
	}
	return gobin
}

// environWithout is the environment less the variables whose
// "NAME=" prefixes are given.
func environWithout(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			env = append(env, kv)
		}
	}
	return env
}

// exitCode is the exit code of a command that ran with err; an error
// other than an exit status ends the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// nixpkgsLike lays out the walkthrough's /tmp/nixpkgs-like: a lib/, the
// example package files, and the sample's manifests under
// _cuda/manifests/sample.
func nixpkgsLike(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyInto := func(glob, rel string) {
		files, _ := filepath.Glob(filepath.Join(repoRoot(), glob))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, filepath.FromSlash(rel), filepath.Base(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyInto("examples/nixpkgs/*.nix", "pkgs/development/cuda-modules/packages")
	copyInto("sample/redistrib_*.json", "pkgs/development/cuda-modules/_cuda/manifests/sample")
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "lib", "default.nix"), []byte(testLib), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}
