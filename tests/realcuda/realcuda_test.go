// Package realcuda checks detect against real NVIDIA binaries with
// NVIDIA's and the community's own tools as oracles: cuobjdump for GPU
// architectures, patchelf for sonames and needed libraries, nix for the
// NAR hash. It runs when CRFF_REAL_CUDA names a directory prepared by
// scripts/fetch-real-cuda.sh (CUDA 11.8 in DIR/root, CUDA 12.5 in
// DIR/cuda-12.5/root, CUDA 13 wheels in DIR/cuda-13/root), and skips
// otherwise.
package realcuda

import (
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// realSet returns the root of one set of real-CUDA-DIR (sub: "" for
// Debian's CUDA 11.8, "cuda-12.5", "cuda-13") and its tool directory
// (binDir, below the root), checking that each of tools is there. It skips
// when CRFF_REAL_CUDA is unset; a directory without the set or a tool is a
// failure, not a skip, so a stale cache cannot hide these tests (a set
// other than 11.8 is complete once its .complete file exists).
func realSet(t *testing.T, sub, binDir string, tools ...string) (root, bin string) {
	t.Helper()
	dir := testenv.RealCUDA(t)
	base := filepath.Join(dir, sub)
	if sub != "" {
		if _, err := os.Stat(filepath.Join(base, ".complete")); err != nil {
			t.Fatalf("no %s in %s (run scripts/fetch-real-cuda.sh %s)", sub, base, dir)
		}
	}
	root = filepath.Join(base, "root")
	bin = filepath.Join(root, binDir)
	for _, tool := range tools {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			t.Fatalf("CRFF_REAL_CUDA=%s: %s has no %s: %v", dir, base, tool, err)
		}
	}
	return root, bin
}

// realRoot is Debian's CUDA 11.8 packages and their cuobjdump.
func realRoot(t *testing.T) (root, cuobjdump string) {
	root, bin := realSet(t, "", "usr/bin", "cuobjdump")
	return root, filepath.Join(bin, "cuobjdump")
}

// archLine matches an `arch =` line and the `Fatbin ... code:` header of
// its block; cuobjdump 13.4 indents the blocks of a concatenated entry's
// inner cubins with a tab.
var archLine = regexp.MustCompile(`(?m)^\t?(?:Fatbin (.+) code:\n\t?=+\n\t?)?arch = (\S+)$`)

// listing is what `cuobjdump FILE` lists: the distinct architectures of
// all entries, of the ELF (SASS) entries and of the PTX entries.
type listing struct{ all, sass, ptx []string }

// oracleListing runs cuobjdump FILE. Each `arch =` line follows the
// `Fatbin elf code:`, `Fatbin ptx code:` (or, for a kind cuobjdump 12.5
// does not name, `Fatbin <unknown kind> code:`) line of its entry.
func oracleListing(t *testing.T, cuobjdump, file string) listing {
	t.Helper()
	out, err := exec.Command(cuobjdump, file).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "does not contain device code") {
			return listing{[]string{}, []string{}, []string{}}
		}
		t.Fatalf("cuobjdump %s: %v\n%s", file, err, out)
	}
	all, sass, ptx := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range archLine.FindAllStringSubmatch(string(out), -1) {
		switch m[1] {
		case "":
			t.Fatalf("cuobjdump %s: arch line %q without its Fatbin ... code line", file, m[0])
		case "elf":
			sass[m[2]] = true
		case "ptx":
			ptx[m[2]] = true
		}
		all[m[2]] = true
	}
	list := func(set map[string]bool) []string {
		out := []string{}
		for a := range set {
			out = append(out, a)
		}
		fatbin.SortArchs(out)
		return out
	}
	return listing{list(all), list(sass), list(ptx)}
}

// oracleArchs returns the distinct architectures cuobjdump FILE lists.
func oracleArchs(t *testing.T, cuobjdump, file string) []string {
	t.Helper()
	return oracleListing(t, cuobjdump, file).all
}

// ourListing is what the ELF reader finds, in oracleListing's shape.
func ourListing(info *elfinfo.Info) listing {
	return listing{fatbin.Archs(info.Images), fatbin.ArchsOfKind(info.Images, fatbin.KindCubin), fatbin.ArchsOfKind(info.Images, fatbin.KindPTX)}
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

// elfFiles lists the ELF files under root/sub.
func elfFiles(t *testing.T, root, sub string) []string {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, sub), func(p string, d fs.DirEntry, err error) error {
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

// TestRealLibraries compares every real NVIDIA CUDA 11.8 library with the
// oracles.
func TestRealLibraries(t *testing.T) {
	root, cuobjdump := realRoot(t)
	compareWithOracles(t, root, "usr/lib", cuobjdump)
}

// TestRealCUDA125 compares every ELF file of the CUDA 12.5 packages
// (libraries, executables, the toolkit's own libraries) with cuobjdump
// 12.5 and patchelf. libcublas 12.5 holds sm_50/60/61 cubins whose e_flags
// carry the accelerator bit while their headers do not: cuobjdump lists
// them without the suffix.
func TestRealCUDA125(t *testing.T) {
	root, bin := real125(t)
	cuobjdump := filepath.Join(bin, "cuobjdump")
	compareWithOracles(t, root, "usr", cuobjdump)

	// The trap the comparison above covers: cuobjdump -lelf names some
	// libcublas cubins *.sm_50a.cubin (from their e_flags) while the plain
	// listing, the oracle, has no a target.
	libs, _ := filepath.Glob(filepath.Join(root, "usr/lib/*/libcublas.so.12.*"))
	if len(libs) != 1 {
		t.Fatalf("libcublas.so.12.*: found %v", libs)
	}
	out, err := exec.Command(cuobjdump, "-lelf", libs[0]).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump -lelf %s: %v\n%s", libs[0], err, out)
	}
	named := regexp.MustCompile(`\.sm_[0-9]+a\.cubin`).FindAllString(string(out), -1)
	plain := oracleArchs(t, cuobjdump, libs[0])
	if len(named) == 0 || slices.ContainsFunc(plain, func(a string) bool { return strings.HasSuffix(a, "a") }) {
		t.Errorf("libcublas 12.5: expected cubins named *a.cubin by -lelf (%d) and no a target in the listing %v", len(named), plain)
	}
	t.Logf("libcublas 12.5: %d cubins named %v... by cuobjdump -lelf; listing %v", len(named), named[:min(len(named), 3)], plain)
}

// compareWithOracles checks every ELF file under root/sub: architectures
// (all, SASS, PTX) against cuobjdump, soname and needed against patchelf.
func compareWithOracles(t *testing.T, root, sub, cuobjdump string) {
	_, patchelfErr := exec.LookPath("patchelf")
	if patchelfErr != nil {
		testenv.NotChecked(t, "patchelf is not installed (apt-get install patchelf): sonames and needed libraries not compared")
	}
	files := elfFiles(t, root, sub)
	if len(files) < 5 {
		t.Fatalf("only %d ELF files under %s", len(files), filepath.Join(root, sub))
	}
	archMatch, dynMatch, withDeviceCode := 0, 0, 0
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
		got := ourListing(info)
		want := oracleListing(t, cuobjdump, file)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(listing{})); diff != "" {
			t.Errorf("%s: architectures differ from cuobjdump (-cuobjdump +ours):\n%s", rel, diff)
		} else {
			archMatch++
		}
		if len(want.all) > 0 {
			withDeviceCode++
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
		t.Logf("%s: %d images, archs %v (SASS %v, PTX %v), soname %q", rel, len(info.Images), got.all, got.sass, got.ptx, info.Soname)
	}
	t.Logf("%s: %d ELF files (%d with device code); architectures match cuobjdump for %d, soname+needed match patchelf for %d (patchelf available: %v)",
		filepath.Join(root, sub), len(files), withDeviceCode, archMatch, dynMatch, patchelfErr == nil)
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
	type img = testfatbin.Image
	section := testfatbin.Section(
		testfatbin.Container(img{SM: 52}, img{SM: 75, Compress: true}, img{SM: 86, PTX: true}),
		testfatbin.Container(img{SM: 90}, img{SM: 90, PTX: true, Compress: true}, img{SM: 61, PTX: true, HeaderSize: 112}),
	)
	lib := sharedObjectWithFatbin(t, t.TempDir(), section)
	info := readELF(t, lib)
	if diff := cmp.Diff(oracleArchs(t, cuobjdump, lib), info.Archs()); diff != "" {
		t.Errorf("synthetic fatbin: (-cuobjdump +ours):\n%s", diff)
	}
}

// sharedObjectWithFatbin builds dir/libx.so with gcc and adds section as
// its .nv_fatbin with objcopy, as nvcc's host link lays it out. It skips
// the test when gcc or objcopy is missing.
func sharedObjectWithFatbin(t *testing.T, dir string, section []byte) string {
	t.Helper()
	for _, tool := range []string{"gcc", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Unavailable(t, tool+" is not installed (scripts/install-deps.sh installs it)")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "fat.bin"), section, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.c"), []byte("int x(void) { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "gcc", "-shared", "-fPIC", "-o", "libx.so", "x.c")
	run(t, dir, "objcopy", "--add-section", ".nv_fatbin=fat.bin", "--set-section-flags", ".nv_fatbin=alloc,readonly", "--set-section-alignment", ".nv_fatbin=8", "libx.so")
	return filepath.Join(dir, "libx.so")
}

// run runs a command in dir and fails the test with its output on error.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func readELF(t *testing.T, file string) *elfinfo.Info {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	info, err := elfinfo.Read(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return info
}

// TestRealTreeNarHash runs the whole of detect over the real tree and
// checks its NAR hash with Nix.
func TestRealTreeNarHash(t *testing.T) {
	root, _ := realRoot(t)
	nix, err := exec.LookPath("nix")
	if err != nil {
		testenv.Unavailable(t, "nix is not installed (apt-get install nix-bin)", "CRFF_REQUIRE_NIX")
	}
	tree := filepath.Join(root, "usr/lib")
	f, err := facts.Detect(tree)
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
