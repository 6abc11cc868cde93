package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

const (
	testSHA = "516f2d8f105ec0d069cda395f255c2db2eac489978637635949a8a2322607fbc"
	testNar = "sha256-UKcCazttmufYH38LXwQce+QeQTgeqQrBcgnPjouZAas="
)

// TestUnpackedHashesRoundTrip: a missing file is an empty record; a
// record written is read back, keyed by the archive's sha256 alone.
func TestUnpackedHashesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), manifest.UnpackedHashesFile)
	h, err := manifest.ReadUnpackedHashes(path)
	if err != nil || len(h.Trees) != 0 {
		t.Fatalf("missing file: %v, %d trees", err, len(h.Trees))
	}
	if changed, err := h.Record("pkg/a.tar.xz", testSHA, testNar); err != nil || !changed {
		t.Fatalf("Record: changed %v, %v", changed, err)
	}
	if changed, _ := h.Record("pkg/a.tar.xz", testSHA, testNar); changed {
		t.Errorf("recording the same hash again changed the record")
	}
	if err := h.Write(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"format": 2`) {
		t.Errorf("written without its format:\n%s", data)
	}
	g, err := manifest.ReadUnpackedHashes(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Lookup(testSHA); got != testNar {
		t.Errorf("Lookup = %q, want %q", got, testNar)
	}
	if got := g.Lookup(strings.Repeat("0", 64)); got != "" {
		t.Errorf("Lookup of another archive (other sha256) = %q, want none", got)
	}
}

// TestUnpackedHashesFormatOneMigrated: a record of format 1 (by
// relative_path) is read as format 2 and marked for rewriting.
func TestUnpackedHashesFormatOneMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), manifest.UnpackedHashesFile)
	old := `{"archives": {"p/x.tar.xz": {"sha256": "` + testSHA + `", "narHash": "` + testNar + `"}}}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := manifest.ReadUnpackedHashes(path)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Migrated || h.Trees[testSHA] != (manifest.UnpackedTree{NarHash: testNar, RelativePath: "p/x.tar.xz"}) {
		t.Errorf("format 1 read as %+v", h)
	}
}

// TestUnpackedHashesRefused: a bad record is an error naming the file
// and the archive; a special file is refused by name before it is read.
func TestUnpackedHashesRefused(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{`{}`, "no archives object"},
		{`{"format": 3, "trees": {}}`, "format 3"},
		{`{"format": 2}`, "no trees object"},
		{`{"format": 2, "trees": {"ABC": {"relativePath": "p/x.tar.xz", "narHash": "` + testNar + `"}}}`, `tree "ABC": not an archive's sha256`},
		{`{"format": 2, "trees": {"` + testSHA + `": {"relativePath": "../x.tar.xz", "narHash": "` + testNar + `"}}}`, "not a safe relative_path"},
		{`{"format": 2, "trees": {"` + testSHA + `": {"relativePath": "p/x.tar.xz", "narHash": "sha256:0abc"}}}`, "(p/x.tar.xz): narHash"},
		// The same hash as ...A=, spelled with the unused bits set.
		{`{"format": 2, "trees": {"` + testSHA + `": {"relativePath": "p/x.tar.xz", "narHash": "sha256-` + strings.Repeat("A", 42) + `B="}}}`, "(p/x.tar.xz): narHash"},
		{`{"format": 2, "trees": {"` + testSHA + `": {"relativePath": "p/x.tar.xz", "narHash": "` + testNar + `", "x": 1}}}`, `unknown field "x"`},
		{`{"archives": {"p/x.tar.xz": {"sha256": "ABC", "narHash": "` + testNar + `"}}}`, "archive p/x.tar.xz: sha256"},
	} {
		path := filepath.Join(t.TempDir(), manifest.UnpackedHashesFile)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := manifest.ReadUnpackedHashes(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and %q", tc.content, err, tc.want)
		}
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", manifest.UnpackedHashesFile)
	os.Mkdir(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, manifest.UnpackedHashesFile)
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		if _, err := manifest.ReadUnpackedHashes(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want a refusal naming it", p, err)
		}
	}
}
