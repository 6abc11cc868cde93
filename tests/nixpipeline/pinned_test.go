package nixpipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnpackedHashesRecordedAndPinned: a first run over the sample (with
// the detector as builder) records every unpacked tree's NAR hash, the
// same as the committed sample/unpacked-hashes.json; the next run pins
// the unpacks with them and changes nothing; a record the unpacker does
// not reproduce fails that archive, naming it and both hashes.
func TestUnpackedHashesRecordedAndPinned(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	file := filepath.Join(dir, "unpacked-hashes.json")
	if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	if code, _, stderr := process(t, dir, det...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the first run wrote no record: %v", err)
	}
	committed, err := os.ReadFile(filepath.Join(repoRoot(), "sample", "unpacked-hashes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("the recorded hashes differ from sample/unpacked-hashes.json:\n%s", got)
	}
	if code, _, stderr := process(t, dir, det...); code != 0 {
		t.Fatalf("pinned run: exit %d\n%s", code, stderr)
	}
	again, _ := os.ReadFile(file)
	if !bytes.Equal(again, got) {
		t.Errorf("the pinned run changed the record:\n%s", again)
	}

	const archive = "cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz"
	const sha = "1a233b3f57a8250a33b401b28532141556e3b5cac6fb9a0f9faaf6d9a8aaf580"
	wrong := "sha256-" + strings.Repeat("A", 43) + "="
	right := replaceRecord(t, file, got, archive, sha, wrong)
	checkMismatchFails(t, dir, det, archive, wrong, right)
}

// replaceRecord writes to file the records data with the NAR hash of
// archive's tree (by its sha256) replaced by narHash, and returns the
// hash it replaced.
func replaceRecord(t *testing.T, file string, data []byte, archive, sha, narHash string) string {
	t.Helper()
	var h struct {
		Format int `json:"format"`
		Trees  map[string]struct {
			NarHash      string `json:"narHash"`
			RelativePath string `json:"relativePath"`
		} `json:"trees"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	r, ok := h.Trees[sha]
	if !ok || r.RelativePath != archive {
		t.Fatalf("no record of %s (%s)", archive, sha)
	}
	was := r.NarHash
	r.NarHash = narHash
	h.Trees[sha] = r
	data, _ = json.Marshal(h)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return was
}

// checkMismatchFails: a run over dir whose record of archive (wrong) the
// unpacker does not reproduce (it unpacks right) fails, naming the
// archive, both hashes and the first difference.
func checkMismatchFails(t *testing.T, dir string, det []string, archive, wrong, right string) {
	t.Helper()
	code, _, stderr := process(t, dir, det...)
	if code == 0 {
		t.Fatalf("a record the unpacker does not reproduce passed:\n%s", stderr)
	}
	for _, want := range []string{archive, "recorded " + wrong, "unpacked now " + right, "first difference:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the mismatch error does not say %q:\n%s", want, stderr)
		}
	}
}
