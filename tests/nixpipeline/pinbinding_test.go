package nixpipeline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// The records of these tests are written in format 1 (by relative_path),
// which the CLI migrates: the same files are what an older version read.

const (
	rtArchive = "cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz"
	rtSHA     = "1a233b3f57a8250a33b401b28532141556e3b5cac6fb9a0f9faaf6d9a8aaf580"
	rtNar     = "sha256-3K30l14JPP/UFkaLYJ0fxRRjfc+8j93Q59fEf4n1k/M="
	// demo_samples' archive: another tree (a Makefile with /usr/ in it).
	samplesArchive = "demo_samples/linux-x86_64/demo_samples-linux-x86_64-1.0.0-archive.tar.xz"
)

// writeFormatOne writes an unpacked-hashes.json of format 1 with one
// record.
func writeFormatOne(t *testing.T, dir, relativePath, sha, narHash string) {
	t.Helper()
	rec := map[string]any{"archives": map[string]any{relativePath: map[string]string{"sha256": sha, "narHash": narHash}}}
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, "unpacked-hashes.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ownCache gives the test's runs a cache of their own: no witness of an
// earlier test vouches for anything.
func ownCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// TestRecordOfAnotherArchiveRefused (issue 37, 1a): archive B, under the
// file name of archive A, with a record that carries A's NAR hash (A's
// tree pinned in the store by an earlier run). The run must not read A's
// tree as B's: it fails, naming the archive and both hashes, and B's
// feature file is not written.
func TestRecordOfAnotherArchiveRefused(t *testing.T) {
	requireNix(t)
	ownCache(t)
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	// A's tree pinned at its path by a run over the sample.
	if code, _, stderr := process(t, copySample(t), det...); code != 0 {
		t.Fatalf("sample run: exit %d\n%s", code, stderr)
	}
	dir := copySample(t)
	os.Remove(filepath.Join(dir, "redistrib_2.0.0.json"))
	b, err := os.ReadFile(filepath.Join(dir, samplesArchive))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rtArchive), b, 0o644); err != nil {
		t.Fatal(err)
	}
	bSHA := sha256Hex(t, filepath.Join(dir, rtArchive))
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "cuda_demo_rt", "linux-x86_64")["sha256"] = bSHA
	})
	writeFormatOne(t, dir, rtArchive, bSHA, rtNar)
	code, _, stderr := process(t, dir, det...)
	if code == 0 {
		t.Fatalf("archive B was given archive A's tree, exit 0:\n%s", stderr)
	}
	for _, want := range []string{rtArchive, "recorded " + rtNar, "is never read as this archive's unpack"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error does not say %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_1.0.0.json")); err == nil {
		t.Errorf("feature_1.0.0.json written from a record that is not its archive's")
	}
	// check-nixpkgs reads the same record: the package file of A's
	// outputs must not pass for archive B.
	code, lines, stderr := checkNixpkgs(t, packagesDir(t, goodPackages), dir, "--hints=false")
	if code == 0 {
		t.Errorf("check-nixpkgs passed archive B as A's tree:\n%s\n%s", strings.Join(lines, "\n"), stderr)
	}
	if all := strings.Join(lines, "\n") + stderr; !strings.Contains(all, "recorded "+rtNar) {
		t.Errorf("check-nixpkgs does not say why:\n%s", all)
	}
}

// pinnedNameOf is the name the pipeline gives the pinned unpack of an
// archive, asked of nix/pipeline.nix itself.
func pinnedNameOf(t *testing.T, relativePath, sha string) string {
	t.Helper()
	expr := fmt.Sprintf(`((import %s/nix/pipeline.nix { detectorProgram = /bin/sh; aggregateProgram = /bin/sh; system = "x86_64-linux"; }).unpack {
	  src = "/x"; entry = { relativePath = %q; sha256 = %q; }; narHash = %q; }).name`, repoRoot(), relativePath, sha, rtNar)
	out, err := exec.Command("nix-instantiate", "--eval", "-E", expr).Output()
	if err != nil {
		t.Fatalf("the pinned name: %v", err)
	}
	var name string
	if err := json.Unmarshal(out, &name); err != nil {
		t.Fatal(err)
	}
	return name
}

// plantTree makes a tree of "another user" valid at the pinned path of
// rtArchive, the way any client of the daemon can: with nix store
// add-path, or by building a fixed-output derivation of its own of that
// name and hash. It returns the tree's NAR hash.
func plantTree(t *testing.T, how string) string {
	t.Helper()
	tree := filepath.Join(t.TempDir(), "tree")
	content := "planted by another user " + how + " " + t.Name()
	if err := os.MkdirAll(filepath.Join(tree, "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "include", "planted.h"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nix", "--extra-experimental-features", "nix-command", "hash", "path", tree).Output()
	if err != nil {
		t.Fatal(err)
	}
	narHash := strings.TrimSpace(string(out))
	name := pinnedNameOf(t, rtArchive, rtSHA)
	var cmd *exec.Cmd
	switch how {
	case "add-path":
		cmd = exec.Command("nix", "--extra-experimental-features", "nix-command", "store", "add-path", "--name", name, tree)
	case "fixed-output derivation":
		expr := fmt.Sprintf(`derivation { name = %q; system = "x86_64-linux"; builder = "/bin/sh"; PATH = "/usr/bin:/bin"; content = %q;
		  args = [ "-c" "mkdir -p $out/include; printf %%s \"$content\" > $out/include/planted.h" ];
		  outputHashMode = "recursive"; outputHashAlgo = "sha256"; outputHash = %q; }`, name, content, narHash)
		cmd = exec.Command("nix-build", "--no-out-link", "--option", "sandbox", "false", "--option", "substituters", "", "-E", expr)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plant the tree (%s): %v\n%s", how, err, out)
	}
	return narHash
}

// TestPlantedTreeRefused (issue 37, 1b and 1c): another user makes a tree
// of their own valid at the pinned path of an archive (nix store
// add-path, or a fixed-output derivation of their own), and a record
// names its hash. The run must not report that tree as the archive's:
// it fails loudly, naming the archive and both hashes.
func TestPlantedTreeRefused(t *testing.T) {
	requireNix(t)
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	for _, how := range []string{"add-path", "fixed-output derivation"} {
		t.Run(strings.ReplaceAll(how, " ", "-"), func(t *testing.T) {
			ownCache(t)
			narHash := plantTree(t, how)
			dir := copySample(t)
			os.Remove(filepath.Join(dir, "redistrib_2.0.0.json"))
			writeFormatOne(t, dir, rtArchive, rtSHA, narHash)
			code, _, stderr := process(t, dir, det...)
			if code == 0 {
				t.Fatalf("a planted tree was taken as %s, exit 0:\n%s", rtArchive, stderr)
			}
			for _, want := range []string{rtArchive, "recorded " + narHash, "unpacked now " + rtNar} {
				if !strings.Contains(stderr, want) {
					t.Errorf("the error does not say %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// TestVerifyPinnedAndWitnesses: a correct record is taken, and a second
// run checks nothing again (its witness); --verify-pinned unpacks again
// and compares, and passes.
func TestVerifyPinnedAndWitnesses(t *testing.T) {
	requireNix(t)
	ownCache(t)
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	dir := copySample(t)
	if code, _, stderr := process(t, dir, det...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	code, _, stderr := process(t, dir, append(det, "-v")...)
	if code != 0 || strings.Contains(stderr, "checking recorded unpacked trees") {
		t.Errorf("second run: exit %d, or it checked witnessed records again:\n%s", code, stderr)
	}
	code, _, stderr = process(t, dir, append(det, "-v", "--verify-pinned")...)
	if code != 0 || !strings.Contains(stderr, "checking recorded unpacked trees") {
		t.Errorf("--verify-pinned: exit %d, or it checked nothing:\n%s", code, stderr)
	}
	// A new detector (an upgrade): every detection is built again, but
	// the witnesses hold, so no archive is unpacked again. Its bytes are
	// this run's own (the temporary directory's name in them): with fixed
	// bytes, a second run of the test on the same store found the
	// detections of the first one and built nothing.
	upgradedDir := t.TempDir()
	upgraded := filepath.Join(upgradedDir, "cuda-redist-detector")
	data, err := os.ReadFile(detectorBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(upgraded, append(data, []byte("\nupgraded in "+upgradedDir+"\n")...), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = process(t, dir, "-v", "--detector-program", upgraded, "--aggregate-program", aggregateBinary(t))
	if code != 0 || strings.Contains(stderr, "checking recorded unpacked trees") || !strings.Contains(stderr, "detected ") {
		t.Errorf("upgraded detector: exit %d, or it checked the witnessed records again, or detected nothing:\n%s", code, stderr)
	}
	for _, l := range builtDerivations(stderr) {
		if strings.HasPrefix(l, "unpacked ") {
			t.Errorf("upgraded detector: an archive unpacked again: %s", l)
		}
	}
}

// TestSpecialRecordRefused (issue 37, 3): unpacked-hashes.json as a link
// to /dev/zero or as a FIFO is refused by name, at once.
func TestSpecialRecordRefused(t *testing.T) {
	requireNix(t)
	for _, kind := range []string{"zero", "fifo"} {
		dir := copySample(t)
		file := filepath.Join(dir, "unpacked-hashes.json")
		os.Remove(file)
		if kind == "zero" {
			if err := os.Symlink("/dev/zero", file); err != nil {
				t.Fatal(err)
			}
		} else if err := syscall.Mkfifo(file, 0o644); err != nil {
			t.Fatal(err)
		}
		// A hang guard, ten times what the refusal takes: a run that
		// reads the FIFO waits for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, programBinary(t), "process-manifests", "--nix-option", "substituters=", "file://"+dir, dir)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Fatalf("%s: still running after 60 s (reading %s?)", kind, file)
		}
		if err == nil || !strings.Contains(string(out), file) || !strings.Contains(string(out), "not a regular file") {
			t.Errorf("%s: %v, want a refusal naming %s:\n%s", kind, err, file, out)
		}
	}
}

// TestReadOnlyManifestDir (issue 37, 6): manifests in a read-only
// directory, their feature files up to date, --out elsewhere and no
// record yet: the run succeeds and says once which record could not be
// written, and why.
func TestReadOnlyManifestDir(t *testing.T) {
	requireNix(t)
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	dir := copySample(t)
	if code, _, stderr := process(t, dir, append(det, "--pin-unpacked=false")...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	os.Remove(filepath.Join(dir, "unpacked-hashes.json"))
	testenv.ReadOnlyDir(t, dir)
	reason := "read-only file system"
	if os.Geteuid() != 0 {
		reason = "permission denied"
	}
	code, _, stderr := process(t, dir, append(det, "--out", t.TempDir())...)
	if code != 0 || strings.Count(stderr, "could not be written") != 1 || !strings.Contains(stderr, reason) {
		t.Errorf("exit %d, want 0 and one warning naming the reason:\n%s", code, stderr)
	}
}

// sha256Hex is the sha256 of a file, as manifests spell it.
func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// TestWitnessedRecordNotReproduced: a record with a witness (so not
// checked before the build) whose tree is not in the store and that the
// unpacker does not reproduce fails its entry with Nix's hash mismatch,
// and the run names the archive, both hashes and the first difference.
func TestWitnessedRecordNotReproduced(t *testing.T) {
	requireNix(t)
	ownCache(t)
	det := []string{"--detector-program", detectorBinary(t), "--aggregate-program", aggregateBinary(t)}
	wrong := "sha256-" + strings.Repeat("B", 42) + "A="
	witnesses := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "cuda-redist-find-features-unpacked-trees")
	if err := os.MkdirAll(witnesses, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(witnesses, rtSHA), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := copySample(t)
	os.Remove(filepath.Join(dir, "redistrib_2.0.0.json"))
	writeFormatOne(t, dir, rtArchive, rtSHA, wrong)
	checkMismatchFails(t, dir, det, rtArchive, wrong, rtNar)
}
