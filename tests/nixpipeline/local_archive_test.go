package nixpipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// freshArchive writes a tar.xz no run has seen (its store path is new)
// of the shape the sample's demo_samples archive has, and returns its
// path and sha256.
func freshArchive(t *testing.T) (string, string) {
	t.Helper()
	src := t.TempDir()
	top := filepath.Join(src, "demo_samples-linux-x86_64-1.0.0-archive")
	if err := os.MkdirAll(top, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "README"), []byte("a fresh archive "+randomToken(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another name than the manifest's: a symlink to it is named apart.
	archive := filepath.Join(t.TempDir(), "fresh.tar.xz")
	if out, err := exec.Command("tar", "-C", src, "-cJf", archive, filepath.Base(top)).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return archive, hex.EncodeToString(sum[:])
}

// TestProcessManifestsLocalArchiveRepaired: a local archive whose bytes
// do not match the manifest fails its entry and says why; that failed
// fetch does not poison the store: once the archive is right (here: a
// symlink to the right bytes under another name) the next run builds it.
// A dangling symlink fails its entry cleanly, naming it.
func TestProcessManifestsLocalArchiveRepaired(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	good, sum := freshArchive(t)
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "demo_samples", "linux-x86_64")["sha256"] = sum
	})
	local := filepath.Join(dir, "demo_samples", "linux-x86_64", "demo_samples-linux-x86_64-1.0.0-archive.tar.xz")
	const entry = "1.0.0 demo_samples/linux-x86_64/None"
	final := filepath.Join(dir, "feature_1.0.0.json")

	if err := os.WriteFile(local, []byte("not the archive the manifest names"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := process(t, dir, "--version", "1.0.0")
	if code != 1 || !strings.Contains(stderr, "does not match the manifest's sha256") || !strings.Contains(stderr, "1 of 6 entries failed: "+entry) {
		t.Fatalf("wrong bytes: exit %d, want 1 with the sha256 mismatch and the entry named:\n%s", code, stderr)
	}

	replaceWithSymlink(t, local, filepath.Join(dir, "nowhere.tar.xz"))
	code, _, stderr = process(t, dir, "--version", "1.0.0")
	if code != 1 || !strings.Contains(stderr, "local archive unreadable") || !strings.Contains(stderr, "1 of 6 entries failed: "+entry) {
		t.Fatalf("dangling symlink: exit %d, want 1 naming the entry and why:\n%s", code, stderr)
	}
	if _, err := os.Stat(final); err == nil {
		t.Fatal("a feature file was written by a failed run")
	}

	replaceWithSymlink(t, local, good)
	code, stdout, stderr := process(t, dir, "--version", "1.0.0")
	if code != 0 {
		t.Fatalf("repaired archive (a symlink): exit %d, want 0:\n%s", code, stderr)
	}
	// The feature file and the aggregate's link.
	if want := final + "\n" + filepath.Join(dir, "aggregate_1.0.0") + "\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	data, err := os.ReadFile(final)
	if err != nil || !strings.Contains(string(data), `"demo_samples"`) {
		t.Errorf("feature file lacks demo_samples (%v):\n%s", err, data)
	}
}

// replaceWithSymlink replaces the file path by a symlink to target.
func replaceWithSymlink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
