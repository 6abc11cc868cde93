package facts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestReadLicence: the file at the top of a tree, preferred by name; a
// symlink, a file below the top, or one over the bound is not read.
func TestReadLicence(t *testing.T) {
	t.Run("placement and preference", testLicencePlacement)
	t.Run("over the bound", testLicenceOverTheBound)
	t.Run("long first line", testLicenceLongLine)
}

// testLicencePlacement: nothing in an empty tree, nor from a symlink or
// a file below the top; License.txt preferred to LICENSE.md, its first
// line without BOM and blank lines.
func testLicencePlacement(t *testing.T) {
	dir := t.TempDir()
	if l, err := facts.ReadLicence(dir); l != nil || err != nil {
		t.Errorf("empty tree: %+v, %v", l, err)
	}
	writeTreeFile(t, dir, "sub/LICENSE", "below the top")
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "LICENSE")); err != nil {
		t.Fatal(err)
	}
	if l, err := facts.ReadLicence(dir); l != nil || err != nil {
		t.Errorf("a symlink and a file below the top: %+v, %v", l, err)
	}
	writeTreeFile(t, dir, "License.txt", "\ufeff\n  \n  End User License Agreement  \nmore\n")
	writeTreeFile(t, dir, "LICENSE.md", "second choice")
	l, err := facts.ReadLicence(dir)
	if err != nil || l == nil || l.Path != "License.txt" || l.FirstLine != "End User License Agreement" || len(l.SHA256) != 64 || l.Size != 43 {
		t.Errorf("got %+v, %v", l, err)
	}
}

// testLicenceOverTheBound: a licence over MaxLicenceBytes is sized, not
// hashed.
func testLicenceOverTheBound(t *testing.T) {
	big := t.TempDir()
	writeTreeFile(t, big, "LICENSE", strings.Repeat("x", facts.MaxLicenceBytes+1))
	if l, err := facts.ReadLicence(big); err != nil || l == nil || l.SHA256 != "" || l.Size != facts.MaxLicenceBytes+1 {
		t.Errorf("over the bound: %+v, %v", l, err)
	}
}

// testLicenceLongLine: a long first line is cut between characters.
func testLicenceLongLine(t *testing.T) {
	long := t.TempDir()
	writeTreeFile(t, long, "LICENSE", strings.Repeat("é", 150))
	if l, _ := facts.ReadLicence(long); l == nil || len(l.FirstLine) > 200 || !strings.HasPrefix(l.FirstLine, "éé") || strings.ContainsRune(l.FirstLine, '\ufffd') {
		t.Errorf("a long line cut in a character: %+v", l)
	}
}

// writeTreeFile writes content to dir/rel, making its directories.
func writeTreeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealLicenceTexts: the licence texts of NVIDIA's wheels (the
// dist-info's licenses/License.txt, the top of that tree) are one text,
// the CUDA EULA; Debian's CUDA 11.8 packages carry one copyright file,
// another text.
func TestRealLicenceTexts(t *testing.T) {
	real := testenv.RealCUDA(t)
	wheels, _ := filepath.Glob(filepath.Join(real, "cuda-13", "root", "*.dist-info", "licenses"))
	more, _ := filepath.Glob(filepath.Join(real, "lineage", "cu1*", "*", "*.dist-info", "licenses"))
	more12, _ := filepath.Glob(filepath.Join(real, "lineage", "cu12", "*.dist-info", "licenses"))
	wheels = append(append(wheels, more...), more12...)
	if len(wheels) < 10 {
		testenv.Unavailable(t, "fewer than 10 unpacked wheels under $CRFF_REAL_CUDA (scripts/fetch-real-cuda.sh)")
	}
	texts := map[string]int{}
	for _, w := range wheels {
		l, err := facts.ReadLicence(w)
		if err != nil || l == nil {
			t.Fatalf("%s: %+v, %v", w, l, err)
		}
		if l.FirstLine != "End User License Agreement" {
			t.Errorf("%s: first line %q", w, l.FirstLine)
		}
		texts[l.SHA256]++
	}
	if len(texts) != 1 {
		t.Errorf("%d wheels, %d texts; want one", len(wheels), len(texts))
	}
	wheelTexts := len(texts)
	wheelText := map[string]bool{}
	for k := range texts {
		wheelText[k] = true
	}
	debs, _ := filepath.Glob(filepath.Join(real, "root", "usr", "share", "doc", "*", "copyright"))
	if len(debs) != 9 {
		t.Fatalf("%d copyright files of Debian's CUDA 11.8 packages, want 9", len(debs))
	}
	for _, d := range debs {
		l, err := facts.LicenceOf(d, "copyright")
		if err != nil || !strings.HasPrefix(l.FirstLine, "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/") {
			t.Fatalf("%s: %+v, %v", d, l, err)
		}
		if wheelText[l.SHA256] {
			t.Errorf("%s: the wheels' text", d)
		}
		texts[l.SHA256]++
	}
	if wheelTexts != 1 || len(texts) != 2 {
		t.Errorf("%d texts over the wheels and the .debs; want 2", len(texts))
	}
}
