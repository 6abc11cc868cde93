package fixrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

// TestWriteKeepsEditsMadeMeanwhile: files a maintainer changed, removed
// or created while --fix ran (between its read and its write) are left
// as they are, each an error finding naming it; every other file is
// still fixed. On main, the fix renamed its own text over the edits.
func TestWriteKeepsEditsMadeMeanwhile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a.nix": "a read\n", "edited.nix": "edited read\n", "removed.nix": "removed read\n", "grown.nix": "grown read\n"}
	for f, text := range files {
		mustWrite(t, filepath.Join(dir, f), text)
	}
	fr := &Fix{PackagesDir: dir, Old: map[string]string{}, New: map[string]string{}}
	for f, text := range files {
		fr.Old[f], fr.New[f] = text, strings.ToUpper(text)
	}
	for _, f := range []string{"new.nix", "appeared.nix"} {
		fr.Old[f], fr.New[f] = "", "new "+f+"\n"
	}
	// The maintainer, while --fix evaluates.
	mustWrite(t, filepath.Join(dir, "edited.nix"), "edited BY HAND\n")
	mustWrite(t, filepath.Join(dir, "grown.nix"), "grown read\nand a line more\n")
	if err := os.Remove(filepath.Join(dir, "removed.nix")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "appeared.nix"), "written by hand\n")

	var written []string
	failed := fr.Write(func(path string) { written = append(written, filepath.Base(path)) })

	if want := []string{"a.nix", "new.nix"}; !cmp.Equal(want, written) {
		t.Errorf("written %v, want %v", written, want)
	}
	want := map[string]string{
		"a.nix":        "A READ\n",
		"new.nix":      "new new.nix\n",
		"edited.nix":   "edited BY HAND\n",
		"grown.nix":    "grown read\nand a line more\n",
		"appeared.nix": "written by hand\n",
	}
	checkContents(t, dir, want)
	if _, err := os.Lstat(filepath.Join(dir, "removed.nix")); err == nil {
		t.Error("removed.nix was written again")
	}
	checkChangedFindings(t, failed, map[string]string{"edited.nix": "it changed", "grown.nix": "it changed", "removed.nix": "it was removed", "appeared.nix": "a file of this name appeared"})
	checkNoTempLeft(t, dir)
}

// checkContents: each file of want in dir holds its text.
func checkContents(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for f, w := range want {
		if got := readText(t, filepath.Join(dir, f)); got != w {
			t.Errorf("%s holds %q, want %q", f, got, w)
		}
	}
}

// checkChangedFindings: failed is one changed-file error for each file
// of want, saying its text and that the file is left as it is.
func checkChangedFindings(t *testing.T, failed []nixpkgscheck.Finding, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, f := range failed {
		if f.Level != nixpkgscheck.LevelError || f.Kind != KindChanged {
			t.Errorf("finding %+v, want an error of kind %s", f, KindChanged)
		}
		got[f.File] = f.Message
	}
	for f, w := range want {
		if !strings.Contains(got[f], w) || !strings.Contains(got[f], "left as it is") {
			t.Errorf("%s: finding %q, want one saying %q", f, got[f], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings for %v, want %d", got, len(want))
	}
}

// checkNoTempLeft: no temporary file of the fix is left in dir.
func checkNoTempLeft(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "crff-fix") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestNewFilesBoundPname: a pname too long for a file name (10 KB: on
// main, `lstat …: file name too long` aborted the whole fix) is refused
// alone, by name; the other new files are still made.
func TestNewFilesBoundPname(t *testing.T) {
	long := strings.Repeat("k", 10_000)
	tree := features.Tree{Files: []string{"LICENSE", "include/h.h", "lib/libh.so"}}
	arch := []nixpkgscheck.Archive{{DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Platform: "linux-x86_64"}, Features: &features.Features{Tree: tree}}}}
	fr := &Fix{PackagesDir: t.TempDir(), Old: map[string]string{}, New: map[string]string{}}
	fr.newFiles([]nixpkgscheck.Unpackaged{
		{Redist: "cuda", Package: long, Archives: arch, CudaVersions: []string{"12.8"}},
		{Redist: "cuda", Package: "libgood", Archives: arch, CudaVersions: []string{"12.8"}},
	})
	if _, ok := fr.New["libgood.nix"]; !ok || len(fr.New) != 1 {
		t.Errorf("new files %v, want libgood.nix alone", fr.Files())
	}
	if len(fr.refusals) != 1 || !strings.Contains(fr.refusals[0].Message, "10000 bytes long, over the 200") {
		t.Fatalf("refusals %+v, want the long pname's", fr.refusals)
	}
	if r := fr.refusals[0]; len(r.File) > 300 || !strings.HasPrefix(r.File, "kkkk") {
		t.Errorf("refusal names %d bytes: %.80q…, want the name shortened", len(r.File), r.File)
	}
	// And writing goes on without it.
	failed := fr.Write(func(string) {})
	if len(failed) != 0 {
		t.Errorf("Write: %+v", failed)
	}
}

// TestWriteSaysWhyNothingWasWritten: a packages directory the system
// will not write (a read-only file system; a full disk) gets, for each
// file, an error of kind notWritten naming the step and the system's
// reason, the files are left as they were, and the outcome says --fix
// could not write them. On main the errors were of kind notFixed, and the
// run's last line said "the Nixpkgs builds of these packages would fail".
// Root ignores mode bits, so the read-only directory is a read-only bind
// mount for root (testenv.ReadOnlyDir), and the full disk a 64 KiB tmpfs,
// filled up (testenv.FullDir).
func TestWriteSaysWhyNothingWasWritten(t *testing.T) {
	const old = "{ buildRedist }: buildRedist { pname = \"a\"; }\n"
	populate := func(dir string) { mustWrite(t, filepath.Join(dir, "a.nix"), old) }
	for _, tc := range []struct {
		name, reason string
		dir          func(t *testing.T) string
	}{
		{"read-only", "read-only file system", func(t *testing.T) string {
			dir := t.TempDir()
			populate(dir)
			testenv.ReadOnlyDir(t, dir)
			return dir
		}},
		{"full disk", "no space left on device", func(t *testing.T) string { return testenv.FullDir(t, populate) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			reason := tc.reason
			if os.Geteuid() != 0 && tc.name == "read-only" {
				reason = "permission denied" // mode 0555: EACCES
			}
			fr := &Fix{PackagesDir: dir, Old: map[string]string{"a.nix": old, "new.nix": ""},
				New: map[string]string{"a.nix": strings.ToUpper(old), "new.nix": "{ buildRedist }: buildRedist { pname = \"new\"; }\n"}}
			var written []string
			failed := fr.Write(func(path string) { written = append(written, path) })
			if len(written) != 0 {
				t.Errorf("written %v", written)
			}
			if len(failed) != 2 {
				t.Fatalf("findings %+v, want one per file", failed)
			}
			checkNotWritten(t, failed, dir, reason)
			if got := readText(t, filepath.Join(dir, "a.nix")); got != old {
				t.Errorf("a.nix holds %q", got)
			}
			if _, err := os.Lstat(filepath.Join(dir, "new.nix")); err == nil {
				t.Error("new.nix exists")
			}
			code, err := nixpkgscheck.Count(failed).Outcome()
			if code != nixpkgscheck.ExitErrors || err == nil || !strings.Contains(err.Error(), "--fix could not write 2 file(s)") || strings.Contains(err.Error(), "builds") {
				t.Errorf("outcome %d %v, want exit 1 saying --fix could not write 2 files, and nothing of builds", code, err)
			}
			checkNoTempLeft(t, dir)
		})
	}
}

// checkNotWritten: each finding is a notWritten error naming dir and
// saying the system's reason.
func checkNotWritten(t *testing.T, failed []nixpkgscheck.Finding, dir, reason string) {
	t.Helper()
	for _, f := range failed {
		if f.Level != nixpkgscheck.LevelError || f.Kind != nixpkgscheck.KindNotWritten || !strings.Contains(f.Message, reason) ||
			!strings.Contains(f.Message, dir) || !strings.HasPrefix(f.Message, "not written, left as it was: ") {
			t.Errorf("finding %+v, want a notWritten error naming %s and saying %q", f, dir, reason)
		}
	}
}
