package nixpipeline

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestGoInstallFromTheModulePath: the README's install line, `go install
// <module>/cmd/...@<version>` with no checkout, installs the three
// programs together, and the installed CLI alone (no --nix-lib, no
// builder flags, run outside any checkout) builds the sample's golden
// features with the two builders it finds beside itself.
//
// The module comes from a GOPROXY directory this test writes (file://):
// the module zip of the checkout's files (vendor/ left out, as module
// zips leave it), at a pseudo-version named by its content. Its
// dependencies come from the module cache's download directory, filled
// once by `go mod download` (through the configured GOPROXY).
func TestGoInstallFromTheModulePath(t *testing.T) {
	requireNix(t)
	if testing.Short() {
		t.Skip("installs the three programs from a module zip")
	}
	clone := checkoutCopy(t, repoRoot())
	realCache := goEnv(t, "GOMODCACHE")
	download := exec.Command("go", "mod", "download")
	download.Dir = clone
	download.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := download.CombinedOutput(); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("go mod download (the dependencies, through GOPROXY=%s): %v\n%s", goEnv(t, "GOPROXY"), err, out))
	}
	version, proxy := moduleProxy(t, clone)
	if err := os.RemoveAll(clone); err != nil { // nothing of a checkout is left to find
		t.Fatal(err)
	}
	gobin, modcache, home := t.TempDir(), t.TempDir(), t.TempDir()
	t.Cleanup(func() {
		clean := exec.Command("go", "clean", "-modcache")
		clean.Env = append(os.Environ(), "GOMODCACHE="+modcache)
		_ = clean.Run() // the module cache is read-only; go removes it
	})
	// The line the CLI and the README give, as a user pastes it into a
	// shell, with the test's GOBIN and module source.
	line := strings.SplitN(nixdriver.InstallHint, " (", 2)[0]
	if !strings.HasPrefix(line, "CGO_ENABLED=0 go install ") || !strings.HasSuffix(line, "/cmd/...@latest") {
		t.Fatalf("InstallHint %q is no go install of the three programs", nixdriver.InstallHint)
	}
	line = strings.TrimSuffix(line, "@latest") + "@" + version
	install := exec.Command("bash", "-c", line)
	install.Dir = t.TempDir()
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOMODCACHE="+modcache, "GOFLAGS=",
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(realCache, "cache", "download"), "GONOSUMDB="+nixdriver.Module,
		"GOSUMDB=off", "GOWORK=off")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	for _, name := range []string{"cuda-redist-find-features", "cuda-redist-detector", "cuda-redist-aggregate"} {
		if _, err := os.Stat(filepath.Join(gobin, name)); err != nil {
			t.Fatalf("go install of %s/cmd/...: %v", nixdriver.Module, err)
		}
	}

	dir := copySample(t)
	index := filepath.Join(t.TempDir(), "index.json")
	cmd := exec.Command(filepath.Join(gobin, "cuda-redist-find-features"), "process-manifests", "--offline",
		"--nix-option", "substituters=", "--redist-name", "sample", "--index", index, "file://"+dir, dir)
	cmd.Dir = t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CRFF_NIX_LIB=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("installed process-manifests: %v\n%s", err, stderr.String())
	}
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
	}
	diffPaths(t, filepath.Join(golden, "index.json"), index)
}

// goEnv is `go env NAME`.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// moduleProxy writes a GOPROXY directory holding the module of the files
// under root (vendor/ left out) at a pseudo-version named by their
// content, and returns the version and the directory.
func moduleProxy(t *testing.T, root string) (string, string) {
	t.Helper()
	files := moduleFiles(t, root)
	version := contentVersion(t, root, files)
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(nixdriver.Module), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`),
		version + ".mod":  gomod,
		version + ".zip":  moduleZip(t, root, files, version),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return version, proxy
}

// moduleFiles are the regular files under root, vendor/ left out, as
// sorted slash-separated relative paths.
func moduleFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == "vendor" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// contentVersion is a pseudo-version named by the files' names and
// content.
func contentVersion(t *testing.T, root string, files []string) string {
	t.Helper()
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	return "v0.0.0-20260101000000-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// moduleZip is the module zip of the files at version.
func moduleZip(t *testing.T, root string, files []string, version string) []byte {
	t.Helper()
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(nixdriver.Module + "@" + version + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return zipped.Bytes()
}

// TestREADMEInstallLineIsTheHint: the README's install command is the
// one the CLI names when a builder is missing (nixdriver.InstallHint),
// with GOBIN set, for the module and for a checkout.
func TestREADMEInstallLineIsTheHint(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.ReplaceAll(string(data), " \\\n  ", " ")
	module, checkout, ok := strings.Cut(nixdriver.InstallHint, " (from a checkout: ")
	if !ok {
		t.Fatalf("InstallHint %q names no checkout's command", nixdriver.InstallHint)
	}
	checkout = strings.TrimSuffix(checkout, ")")
	for _, line := range []string{module, checkout} {
		want := strings.Replace(line, "CGO_ENABLED=0 go install", "CGO_ENABLED=0 GOBIN=/usr/local/bin go install", 1)
		if !strings.Contains(readme, want) {
			t.Errorf("README.md has no install line %q", want)
		}
	}
}
