package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

const (
	testSHA = "516f2d8f105ec0d069cda395f255c2db2eac489978637635949a8a2322607fbc"
	testNar = "sha256-UKcCazttmufYH38LXwQce+QeQTgeqQrBcgnPjouZAas="
)

// TestUnpackedHashesRoundTrip: a missing file is an empty record; a
// record written is read back, and holds for the same sha256 only.
func TestUnpackedHashesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), manifest.UnpackedHashesFile)
	h, err := manifest.ReadUnpackedHashes(path)
	if err != nil || len(h.Archives) != 0 {
		t.Fatalf("missing file: %v, %d archives", err, len(h.Archives))
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
	g, err := manifest.ReadUnpackedHashes(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Lookup("pkg/a.tar.xz", testSHA); got != testNar {
		t.Errorf("Lookup = %q, want %q", got, testNar)
	}
	if got := g.Lookup("pkg/a.tar.xz", strings.Repeat("0", 64)); got != "" {
		t.Errorf("Lookup of a replaced archive (other sha256) = %q, want none", got)
	}
}

// TestUnpackedHashesRefused: a bad record is an error naming the file
// and the archive.
func TestUnpackedHashesRefused(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{`{}`, "no archives object"},
		{`{"archives": {"../x.tar.xz": {"sha256": "` + testSHA + `", "narHash": "` + testNar + `"}}}`, `archive "../x.tar.xz": not a safe relative_path`},
		{`{"archives": {"p/x.tar.xz": {"sha256": "ABC", "narHash": "` + testNar + `"}}}`, "archive p/x.tar.xz: sha256"},
		{`{"archives": {"p/x.tar.xz": {"sha256": "` + testSHA + `", "narHash": "sha256:0abc"}}}`, "archive p/x.tar.xz: narHash"},
		{`{"archives": {"p/x.tar.xz": {"sha256": "` + testSHA + `", "narHash": "` + testNar + `", "x": 1}}}`, "x"},
	} {
		path := filepath.Join(t.TempDir(), manifest.UnpackedHashesFile)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := manifest.ReadUnpackedHashes(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming %s and saying %q", tc.content, err, path, tc.want)
		}
	}
}
