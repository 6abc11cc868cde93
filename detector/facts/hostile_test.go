package facts_test

// Deep, symlink-heavy, huge and oddly named trees, all generated here:
// detect must keep every name, and its work (symlink steps, bytes
// searched, bytes allocated) must be bounded in proportion to the tree,
// counted, never timed.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testnar"
)

// rulesSteps bounds the steps of the rules' lookups of fixed paths (bin,
// include, lib/pkgconfig, ...: a few dozen on any tree).
const rulesSteps = 1 << 10

// boundedDetect runs Detect on root, failing past maxAlloc bytes
// allocated on the heap or when its symlink lookups stepped through more
// than rulesSteps and steps per node and symlink target component: a
// bound on the work done in proportion to the tree, which no machine's
// load can change.
func boundedDetect(t *testing.T, root string, maxAlloc uint64, steps int) (*features.Features, facts.Work) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, w, err := facts.DetectWork(root)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	t.Logf("Detect: %+v, %d MiB allocated", w, (after.TotalAlloc-before.TotalAlloc)>>20)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > maxAlloc {
		t.Errorf("Detect allocated %d MiB, want under %d MiB", grew>>20, maxAlloc>>20)
	}
	if most := rulesSteps + steps*(w.Nodes+w.TargetComponents); w.SymlinkSteps > most {
		t.Errorf("the lookups stepped through %d components, more than %d and %d per node and target component (%d nodes, %d components of targets): not linear in the tree",
			w.SymlinkSteps, rulesSteps, steps, w.Nodes, w.TargetComponents)
	}
	return f, w
}

// TestDeepTree: a tree 1900 levels deep took 117 s when every lookup
// rebuilt its path (and went through every directory above it again).
func TestDeepTree(t *testing.T) {
	root := t.TempDir()
	const depth = 1900
	deep := filepath.Join(root, testarchive.DeepName(depth))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"include/x.h", testarchive.DeepName(depth) + "/x.h", testarchive.DeepName(depth/2) + "/libx.so"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte("int x;"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := boundedDetect(t, root, 128<<20, 2)
	if len(f.Tree.Files) != 3 || len(f.Libraries) != 1 {
		t.Errorf("files %d, libraries %d; want 3 and 1", len(f.Tree.Files), len(f.Libraries))
	}
	want, err := testnar.HashPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if f.NarHash != want {
		t.Errorf("NarHash %s, go-nix gives %s", f.NarHash, want)
	}
}

// TestSymlinkHeavyTree: links between the root and a directory 1000
// levels deep (long chains, loops and dangling ends) took 30 s, every
// lookup walking the chain again; each link is now resolved once.
func TestSymlinkHeavyTree(t *testing.T) {
	root := t.TempDir()
	const depth, links = 1000, 400
	deep := filepath.Join(root, testarchive.DeepName(depth))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	up := strings.TrimSuffix(strings.Repeat("../", depth), "/")
	for i := 0; i < links; i++ {
		if err := os.Symlink(fmt.Sprintf("%s/r%d.so", up, i), filepath.Join(deep, fmt.Sprintf("u%d", i))); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(fmt.Sprintf("%s/u%d", testarchive.DeepName(depth), (i+1)%links), filepath.Join(root, fmt.Sprintf("r%d.so", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < links; i++ {
		if err := os.Symlink(fmt.Sprintf("../r%d.so", i), filepath.Join(root, "lib", fmt.Sprintf("l%d.so", i))); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := boundedDetect(t, root, 128<<20, 2)
	// Every chain loops: each lib/*.so is a dangling library.
	if len(f.Libraries) != 2*links || f.Libraries[0].Kind != "danglingSymlink" {
		t.Errorf("%d libraries (first %+v), want %d dangling", len(f.Libraries), f.Libraries[0], 2*links)
	}
}

// TestHugePkgConfig: a .pc file of 100 MB of newlines made detect use
// 2.5 GB (a split of the whole file into lines). The /usr/ search looks
// at each byte at most twice.
func TestHugePkgConfig(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "lib", "pkgconfig")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 100<<20)
	for i := range body {
		body[i] = '\n'
	}
	// 64 lines that nixpkgs rewrites, spread over the first half: a search
	// that went back to the start for each would look at 32 times the file.
	for i := 1; i <= 64; i++ {
		copy(body[i*len(body)/128:], "cudaroot=/usr/local/cuda\n")
	}
	copy(body[len(body)-100:], "Libs: -L/usr/lib64\n")
	if err := os.WriteFile(filepath.Join(dir, "x.pc"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	size := len(body)
	body = nil
	f, w := boundedDetect(t, root, 64<<20, 2)
	if w.UsrScanned > 2*size {
		t.Errorf("the /usr/ search looked at %d bytes of the %d-byte file, more than twice each", w.UsrScanned, size)
	}
	if len(f.Tree.UsrFiles) != 1 || len(f.Tree.UsrOnlyInPkgConfigVars) != 0 {
		t.Errorf("usrFiles %v, usrOnlyInPkgConfigVars %v: want the file, with a /usr/ outside the rewritten lines",
			f.Tree.UsrFiles, f.Tree.UsrOnlyInPkgConfigVars)
	}
}

// TestNonUTF8Names: names that differ only in invalid UTF-8 bytes stay
// apart in the output, escaped, and the NAR hash covers the raw bytes.
func TestNonUTF8Names(t *testing.T) {
	root := hostileNamesTree(t)
	f, err := facts.Detect(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`include/a\\xff.h`, `include/a\xfe.h`, `include/a\xff.h`, "include/caf\xc3\xa9.h", `include/link\xff.h`}
	if fmt.Sprint(f.Headers) != fmt.Sprint(want) {
		t.Errorf("headers %q, want %q", f.Headers, want)
	}
	for _, h := range f.Headers {
		raw, err := features.UnescapeName(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(root, raw)); err != nil {
			t.Errorf("%q does not unescape to a file: %v", h, err)
		}
	}
	data, err := features.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `\ufffd`) {
		t.Errorf("the JSON replaced bytes by U+FFFD")
	}
	checkNarHash(t, root, f.NarHash)
}

// hostileNamesTree is a tree of headers whose names differ only in
// invalid UTF-8 bytes, or in their escape, and a link named so.
func hostileNamesTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a\xff.h", "a\xfe.h", `a\xff.h`, "caf\xc3\xa9.h"} {
		if err := os.WriteFile(filepath.Join(root, "include", name), []byte("int x;"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a\xff.h", filepath.Join(root, "include", "link\xff.h")); err != nil {
		t.Fatal(err)
	}
	return root
}

// checkNarHash: narHash is root's NAR hash as go-nix computes it, and as
// nix hash path does when Nix is installed.
func checkNarHash(t *testing.T, root, narHash string) {
	t.Helper()
	hash, err := testnar.HashPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if narHash != hash {
		t.Errorf("NarHash %s, go-nix gives %s", narHash, hash)
	}
	nix, err := exec.LookPath("nix")
	if err != nil {
		testenv.NotChecked(t, "nix is not installed (apt-get install nix-bin): nix hash path not compared", "CRFF_REQUIRE_NIX")
		return
	}
	out, err := exec.Command(nix, "--extra-experimental-features", "nix-command", "hash", "path", root).Output()
	if err != nil {
		t.Fatalf("nix hash path: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != narHash {
		t.Errorf("NarHash %s, nix hash path gives %s", narHash, got)
	}
}

// TestMalformedDynamicIsLibraryError: an out-of-bounds DT_NEEDED offset
// was dropped without a word; it is now the library's error.
func TestMalformedDynamicIsLibraryError(t *testing.T) {
	lib := sharedLib("libx.so.1", []string{"liby.so"})
	f, err := elf.NewFile(bytes.NewReader(lib))
	if err != nil {
		t.Fatal(err)
	}
	dyn := f.Section(".dynamic")
	for p := int(dyn.Offset); p+16 <= int(dyn.Offset+dyn.Size); p += 16 {
		if elf.DynTag(binary.LittleEndian.Uint64(lib[p:])) == elf.DT_NEEDED {
			binary.LittleEndian.PutUint64(lib[p+8:], 1<<40)
		}
	}
	got := detectEntries(t, []E{B("lib/libx.so.1", lib)})
	if len(got.Libraries) != 1 || !strings.Contains(got.Libraries[0].Error, "DT_NEEDED") || got.Libraries[0].Soname != "libx.so.1" {
		t.Errorf("libraries = %+v, want libx.so.1 with a DT_NEEDED error", got.Libraries)
	}
}
