// Package realcuda checks the detector against real NVIDIA binaries with
// NVIDIA's and the community's own tools as oracles: cuobjdump for GPU
// architectures, patchelf for sonames and needed libraries, nix for the
// NAR hash. It runs when CRFF_REAL_CUDA names a directory prepared by
// scripts/fetch-real-cuda.sh, and skips otherwise.
package realcuda

import (
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector"
	"github.com/nix-cuda/cuda-redist-find-features/internal/testfatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/lib/fatbin"
)

func realRoot(t *testing.T) (root, cuobjdump string) {
	dir := os.Getenv("CRFF_REAL_CUDA")
	if dir == "" {
		t.Skip("CRFF_REAL_CUDA is not set (prepare it with scripts/fetch-real-cuda.sh DIR)")
	}
	root = filepath.Join(dir, "root")
	cuobjdump = filepath.Join(root, "usr/bin/cuobjdump")
	if _, err := os.Stat(cuobjdump); err != nil {
		t.Fatalf("CRFF_REAL_CUDA=%s has no cuobjdump: %v", dir, err)
	}
	return root, cuobjdump
}

var archLine = regexp.MustCompile(`(?m)^arch = (\S+)$`)

// oracleArchs runs cuobjdump FILE and returns the distinct architectures.
func oracleArchs(t *testing.T, cuobjdump, file string) []string {
	t.Helper()
	out, err := exec.Command(cuobjdump, file).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "does not contain device code") {
			return []string{}
		}
		t.Fatalf("cuobjdump %s: %v\n%s", file, err, out)
	}
	seen := map[string]bool{}
	archs := []string{}
	for _, m := range archLine.FindAllStringSubmatch(string(out), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			archs = append(archs, m[1])
		}
	}
	fatbin.SortArchs(archs)
	return archs
}

func patchelf(t *testing.T, flag, file string) []string {
	t.Helper()
	out, err := exec.Command("patchelf", flag, file).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && flag == "--print-soname" {
			return nil // no DT_SONAME
		}
		t.Fatalf("patchelf %s %s: %v", flag, file, err)
	}
	return strings.Fields(string(out))
}

func elfFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "usr/lib"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := elf.Open(p)
		if err != nil {
			return nil
		}
		f.Close()
		files = append(files, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRealLibraries compares every real NVIDIA library with the oracles.
func TestRealLibraries(t *testing.T) {
	root, cuobjdump := realRoot(t)
	_, patchelfErr := exec.LookPath("patchelf")
	files := elfFiles(t, root)
	if len(files) < 5 {
		t.Fatalf("only %d ELF files under %s", len(files), root)
	}
	archMatch, dynMatch := 0, 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		info, err := elfinfo.Read(data)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		got := info.Archs()
		if got == nil {
			got = []string{}
		}
		want := oracleArchs(t, cuobjdump, file)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: architectures differ from cuobjdump (-cuobjdump +ours):\n%s", rel, diff)
		} else {
			archMatch++
		}
		if patchelfErr != nil {
			continue
		}
		soname := strings.Join(patchelf(t, "--print-soname", file), "")
		needed := patchelf(t, "--print-needed", file)
		if info.Soname != soname || !cmp.Equal(needed, info.Needed, cmpEmpty) {
			t.Errorf("%s: soname %q needed %v; patchelf says %q %v", rel, info.Soname, info.Needed, soname, needed)
		} else {
			dynMatch++
		}
		t.Logf("%s: %d images, archs %v, soname %q", rel, len(info.Images), got, info.Soname)
	}
	t.Logf("real libraries: %d ELF files; architectures match cuobjdump for %d, soname+needed match patchelf for %d (patchelf available: %v)",
		len(files), archMatch, dynMatch, patchelfErr == nil)
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})

// TestSyntheticFatbinsAgainstCuobjdump proves that the fatbins the test
// builder writes are what cuobjdump reads, so the unit tests built on them
// test the real format.
func TestSyntheticFatbinsAgainstCuobjdump(t *testing.T) {
	_, cuobjdump := realRoot(t)
	for _, tool := range []string{"gcc", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	type img = testfatbin.Image
	dir := t.TempDir()
	section := testfatbin.Section(
		testfatbin.Container(img{SM: 52}, img{SM: 75, Compress: true}, img{SM: 86, PTX: true}),
		testfatbin.Container(img{SM: 90}, img{SM: 90, PTX: true, Compress: true}, img{SM: 61, PTX: true, HeaderSize: 112}),
	)
	if err := os.WriteFile(filepath.Join(dir, "fat.bin"), section, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.c"), []byte("int x(void) { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gcc", "-shared", "-fPIC", "-o", "libx.so", "x.c"},
		{"objcopy", "--add-section", ".nv_fatbin=fat.bin", "--set-section-flags", ".nv_fatbin=alloc,readonly", "--set-section-alignment", ".nv_fatbin=8", "libx.so"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	lib := filepath.Join(dir, "libx.so")
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	info, err := elfinfo.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(oracleArchs(t, cuobjdump, lib), info.Archs()); diff != "" {
		t.Errorf("synthetic fatbin: (-cuobjdump +ours):\n%s", diff)
	}
}

// TestRealTreeNarHash runs the whole detector over the real tree and
// checks its NAR hash with Nix.
func TestRealTreeNarHash(t *testing.T) {
	root, _ := realRoot(t)
	nix, err := exec.LookPath("nix")
	if err != nil {
		t.Skip("nix not installed")
	}
	tree := filepath.Join(root, "usr/lib")
	f, err := detector.Detect(tree)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nix, "--extra-experimental-features", "nix-command", "hash", "path", tree).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != f.NarHash {
		t.Errorf("NarHash %s, nix hash path %s", f.NarHash, got)
	}
	t.Logf("%s: %d libraries, narHash %s", tree, len(f.Libraries), f.NarHash)
}
