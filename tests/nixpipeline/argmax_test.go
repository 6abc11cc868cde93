package nixpipeline

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// writeTinyManifest writes redistrib_<version>.json in dir: n packages,
// each one tiny local archive (a README in a directory of the archive's
// name) under a file name about nameLen bytes long, depth directories
// of 240-byte names below its platform's, so that each path the run
// passes on (the archive, its fetch's store path) is long. It returns
// the archives' paths.
func writeTinyManifest(t *testing.T, dir, version string, n, nameLen, depth int) []string {
	t.Helper()
	m := map[string]any{"release_date": "2025-01-01", "release_label": version, "release_product": "sample"}
	var files []string
	salt := randomToken(t)
	// Directories of long names between the platform and the archive:
	// long paths, from fewer archives (each costs the run two builds).
	deep := strings.Repeat(strings.Repeat("d", 240)+"/", depth)
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("tiny%05d", i)
		base := fmt.Sprintf("%s-linux-x86_64-1.0-%s-archive", key, strings.Repeat("x", max(0, nameLen-len(key)-40)))
		body := testarchive.TarXz([]testarchive.Entry{testarchive.D(base + "/"), testarchive.F(base+"/README", "tiny package "+strconv.Itoa(i)+" "+salt+"\n")})
		rel := key + "/linux-x86_64/" + deep + base + ".tar.xz"
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, body, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
		sum, md := sha256.Sum256(body), md5.Sum(body)
		m[key] = map[string]any{"name": "Tiny " + key, "license": "Sample", "version": "1.0",
			"linux-x86_64": map[string]any{"relative_path": rel, "sha256": hex.EncodeToString(sum[:]), "md5": hex.EncodeToString(md[:]), "size": strconv.Itoa(len(body))}}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redistrib_"+version+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return files
}

// smallStackKiB is the stack limit TestProcessManifestsPastArgMax runs the
// CLI under: the kernel then lets a program it starts have 128 KiB of
// arguments and environment (a quarter of the stack limit, and no less
// than 128 KiB), not the usual 2 MiB.
const smallStackKiB = 256

// TestProcessManifestsPastArgMax: process-manifests under a stack limit
// that makes the kernel's ARG_MAX 128 KiB, over a manifest whose local
// archives' paths take over twice that (130 archives, each path about
// 2,200 bytes) beside the sample's ordinary manifest: every archive is added,
// every entry detected, both feature files written. Before: the command
// lines were sized for a 2 MiB limit, nix-store --add-fixed failed with
// "argument list too long", and the big manifest's fetches failed.
func TestProcessManifestsPastArgMax(t *testing.T) {
	requireNix(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 128 << 10
	dir := copySample(t)
	files := writeTinyManifest(t, dir, "9.0.0", 130, 180, 8)
	if n := nixexec.ArgBytes(files...); n < 2*limit {
		t.Fatalf("only %d bytes of archive paths", n)
	}
	args := []string{"-c", "ulimit -S -s " + strconv.Itoa(smallStackKiB) + ` && exec "$0" "$@"`, programBinary(t),
		"process-manifests", "--nix-option", "substituters=", "--redist-name", "sample", "file://" + dir, dir}
	cmd := exec.Command(sh, args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("process-manifests under ulimit -s %d: %v\n%s", smallStackKiB, err, tail(stderr.String(), 40))
	}
	var features map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "feature_9.0.0.json"))
	if err == nil {
		err = json.Unmarshal(data, &features)
	}
	if err != nil || len(features) != len(files) {
		t.Errorf("feature_9.0.0.json: %d packages, want %d (%v)", len(features), len(files), err)
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if _, err := os.Stat(filepath.Join(dir, "feature_"+v+".json")); err != nil {
			t.Errorf("the ordinary manifest's feature file: %v", err)
		}
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
