// Package nixpipeline runs the Nix pipeline for real: sandboxed nix-build
// of the bundled sample through default.nix, golden comparison, narHash
// against `nix path-info`, failure isolation with --keep-going, corrupt
// archives, determinism with --check, and `nix flake check` against the
// offline nixpkgs stand-in.
//
// It needs Nix (Debian's nix-bin is enough). Without it the tests skip,
// unless CRFF_REQUIRE_NIX=1, as in CI, where they fail instead.
package nixpipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

var nixOptions = []string{
	"--option", "sandbox", "true",
	"--option", "substituters", "",
	"--extra-experimental-features", "nix-command flakes",
}

func repoRoot() string { return testenv.RepoRoot() }

func requireNix(t *testing.T) { testenv.RequireNix(t, "nix-build") }

// builtProgram is one of the three programs (cmd/<name>), built once for
// all tests into one directory, binDir, as `go install ./cmd/...` installs
// them: the CLI finds the two builders beside itself. The builders are
// built reproducibly, as scripts/sample.sh builds them.
type builtProgram struct {
	name    string
	ldflags string
	once    sync.Once
	path    string
	err     error
}

var (
	cliProgram       = &builtProgram{name: "cuda-redist-find-features"}
	detectorProgram  = &builtProgram{name: "cuda-redist-detector", ldflags: "-s -w -buildid="}
	aggregateProgram = &builtProgram{name: "cuda-redist-aggregate", ldflags: "-s -w -buildid="}

	binDirOnce sync.Once
	binDir     string
	binDirErr  error
)

// TestMain removes binDir, where the programs were built, once the tests
// are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// programBinary is the CLI, cuda-redist-find-features, built once.
func programBinary(t *testing.T) string { return cliProgram.binary(t) }

// detectorBinary is cuda-redist-detector, built once.
func detectorBinary(t *testing.T) string { return detectorProgram.binary(t) }

// aggregateBinary is cuda-redist-aggregate, built once.
func aggregateBinary(t *testing.T) string { return aggregateProgram.binary(t) }

func (b *builtProgram) binary(t *testing.T) string {
	t.Helper()
	binDirOnce.Do(func() { binDir, binDirErr = os.MkdirTemp("", "crff-bin-") })
	if binDirErr != nil {
		t.Fatal(binDirErr)
	}
	b.once.Do(func() {
		b.path = filepath.Join(binDir, b.name)
		b.err = goBuild("./cmd/"+b.name, b.path, "-ldflags="+b.ldflags)
	})
	if b.err != nil {
		t.Fatalf("build %s: %v", b.name, b.err)
	}
	if b == cliProgram {
		// The CLI runs the builders installed beside it.
		detectorBinary(t)
		aggregateBinary(t)
	}
	return b.path
}

// goBuild builds pkg into out, static, with trimmed paths and no VCS
// stamp, flags (-ldflags, -overlay) added: the one way a test builds a
// program.
func goBuild(pkg, out string, flags ...string) error {
	args := append([]string{"build", "-trimpath", "-buildvcs=false", "-o", out}, flags...)
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// nix runs a Nix command with the offline, sandboxed options and returns
// stdout; stderr is returned on failure.
func nix(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	full := append(append([]string{}, args[1:]...), nixOptions...)
	if args[0] == "nix" {
		// First, as a user types them: on Nix 2.26 and later, a flake
		// command's own flags (--override-input) and the flake-registry
		// setting are refused unless flakes are already enabled.
		full = append(append([]string{}, nixOptions...), args[1:]...)
	}
	cmd := exec.Command(args[0], full...)
	cmd.Dir = repoRoot()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), stderr.String(), err
}

func mustNix(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := nix(t, args...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr)
	}
	return out
}

// buildSample builds an attribute of default.nix's features.sample.
func buildSample(t *testing.T, attr string) string {
	return mustNix(t, append([]string{"nix-build", "--no-out-link"}, sampleArgs(t, attr)...)...)
}

// sampleArgs are default.nix's arguments for the sample's attr, with the
// three programs the tests build: what buildSample builds, and what a
// test instantiates to find the same derivations.
func sampleArgs(t *testing.T, attr string) []string {
	return []string{"default.nix", "--arg", "cliProgram", programBinary(t), "--arg", "detectorProgram", detectorBinary(t),
		"--arg", "aggregateProgram", aggregateBinary(t), "-A", "features.sample." + attr}
}

// runProgram runs the built binary from the repository root (where it
// finds nix/) and returns its exit code, stdout and stderr.
func runProgram(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	// A temporary directory of its own, to check the run leaves nothing
	// of its own there (GC roots, features read back from a store).
	tmp := t.TempDir()
	var stdout bytes.Buffer
	code, stderr := runTo(t, &stdout, []string{"TMPDIR=" + tmp}, args...)
	if left, _ := filepath.Glob(filepath.Join(tmp, "crff-*")); len(left) > 0 {
		t.Errorf("%v left %v in TMPDIR", args, left)
	}
	return code, stdout.String(), stderr
}

// runTo runs the program with stdout going to stdout and the
// environment changed by env (NAME=VALUE; TMPDIR is a new directory
// unless env sets it), and returns the exit code and stderr.
func runTo(t *testing.T, stdout io.Writer, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(programBinary(t), args...)
	cmd.Dir = repoRoot()
	// os/exec keeps the last of a variable given twice.
	cmd.Env = append(append(os.Environ(), "TMPDIR="+t.TempDir()), env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

func diffPaths(t *testing.T, expected, actual string) {
	t.Helper()
	cmd := exec.Command(programBinary(t), "compare", expected, actual)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s differs from golden %s:\n%s", actual, expected, out)
	}
}

func TestSampleMatchesGolden(t *testing.T) {
	requireNix(t)
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		out := buildSample(t, `"`+v+`"`)
		diffPaths(t, filepath.Join(golden, v), out)
	}
	diffPaths(t, filepath.Join(golden, "index.json"), buildSample(t, "index"))
}

// TestNarHashMatchesNix: the detect derivation takes the unpacked tree's
// NAR hash from Nix (exportReferencesGraph), so what it records must be
// what `nix path-info` shows for the unpacked store path; and the
// detect hashing the same tree itself, as the CLI does outside Nix,
// must find the same hash.
func TestNarHashMatchesNix(t *testing.T) {
	requireNix(t)
	for _, e := range []string{
		`"1.0.0".entries.cuda_demo_rt.linux-x86_64.None`,
		`"1.0.0".entries.cuda_demo_rt.windows-x86_64.None`,
		`"1.0.0".entries.cuda_demo_tools.linux-x86_64.None`,
		`"2.0.0".entries.libdemo_variant.linux-x86_64.cuda12`,
	} {
		unpacked := buildSample(t, e+".unpacked")
		featuresFile := buildSample(t, e+".features")
		f, err := features.ReadFeatures(featuresFile)
		if err != nil {
			t.Fatal(err)
		}
		info := mustNix(t, "nix", "path-info", "--json", unpacked)
		narHash, err := pathInfoNarHash([]byte(info), unpacked)
		if err != nil {
			t.Fatalf("%v (%s)", err, info)
		}
		if narHash != f.NarHash {
			t.Errorf("%s: detect derivation narHash %s, nix path-info %s", e, f.NarHash, narHash)
		}
		code, stdout, stderr := runProgram(t, "detect", unpacked)
		if code != 0 {
			t.Fatalf("detect %s: exit %d: %s", unpacked, code, stderr)
		}
		own, err := features.DecodeFeatures("detect "+unpacked, []byte(stdout))
		if err != nil {
			t.Fatal(err)
		}
		if own.NarHash != narHash {
			t.Errorf("%s: detect's own hash %s, nix path-info %s", e, own.NarHash, narHash)
		}
	}
}

// copySample copies the sample into a temp dir (outside the store) so a
// test can break it, and returns the dir.
func copySample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	cmd := exec.Command("cp", "-r", filepath.Join(repoRoot(), "sample")+"/.", dst)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

// pipelineExpr is the Nix file and arguments for the features of one
// manifest in dir, fetched from dir with file:// (made visible to the
// sandbox by extra-sandbox-paths); -A selects within them.
func pipelineExpr(t *testing.T, dir, manifestFile string) []string {
	return []string{filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "pipeline.nix"),
		"--argstr", "repo", repoRoot(), "--argstr", "detectorProgram", detectorBinary(t),
		"--argstr", "aggregateProgram", aggregateBinary(t), "--argstr", "dir", dir, "--argstr", "manifest", manifestFile}
}

func rewriteManifest(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	data, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func leaf(m map[string]any, pkg, platform string) map[string]any {
	return m[pkg].(map[string]any)[platform].(map[string]any)
}

// TestWrongHashFailsOnlyItsEntry: with --keep-going, a bad sha256 fails
// that entry's fetch with Nix's hash-mismatch message; every other
// entry's detection still builds.
func TestWrongHashFailsOnlyItsEntry(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	const wrong = "0000000000000000000000000000000000000000000000000000000000000001"
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "cuda_demo_tools", "linux-x86_64")["sha256"] = wrong
	})
	expr := pipelineExpr(t, dir, "redistrib_1.0.0.json")
	_, stderr, err := nix(t, append([]string{"nix-build", "--no-out-link", "--keep-going", "--option", "extra-sandbox-paths", dir}, expr...)...)
	if err == nil {
		t.Fatal("build with a wrong sha256 succeeded")
	}
	if !strings.Contains(stderr, "hash mismatch") || !strings.Contains(stderr, "demo-tools-1.0.7.tar.gz") {
		t.Errorf("stderr lacks the hash mismatch for demo-tools-1.0.7.tar.gz:\n%s", stderr)
	}
	// The other entries were built despite the failure.
	for _, e := range []string{"cuda_demo_rt.linux-x86_64.None", "cuda_demo_rt.windows-x86_64.None", "demo_samples.linux-x86_64.None", "libdemo_versioned.linux-x86_64.None"} {
		drv := mustNix(t, append(append([]string{"nix-instantiate", "--option", "extra-sandbox-paths", dir}, expr...), "-A", "entries."+e+".features")...)
		out := mustNix(t, "nix-store", "-q", "--outputs", drv)
		if _, err := os.Stat(out); err != nil {
			t.Errorf("entry %s was not built: %v", e, err)
		}
	}
}

// TestCorruptArchiveFailsUnpack: an archive whose bytes match the manifest
// but cannot be decoded fails its unpack with the binary's error.
func TestCorruptArchiveFailsUnpack(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	rel := "demo_samples/linux-x86_64/demo_samples-linux-x86_64-1.0.0-archive.tar.xz"
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	data = data[:len(data)/2] // truncated download
	if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(data)
	sum := hex.EncodeToString(digest[:])
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "demo_samples", "linux-x86_64")["sha256"] = sum
	})
	expr := append(pipelineExpr(t, dir, "redistrib_1.0.0.json"), "-A", "entries.demo_samples.linux-x86_64.None.features")
	_, stderr, err := nix(t, append([]string{"nix-build", "--no-out-link", "--option", "extra-sandbox-paths", dir}, expr...)...)
	if err == nil {
		t.Fatal("build of a truncated archive succeeded")
	}
	if !strings.Contains(stderr, "cuda-redist-detector: unpack /nix/store/") || !strings.Contains(stderr, "demo_samples-linux-x86_64-1.0.0-archive.tar.xz") {
		t.Errorf("stderr lacks the unpack error naming the archive:\n%s", stderr)
	}
}

// TestDeterministic rebuilds every derivation of the sample (not the
// fetches) with --check: outputs must be byte-identical.
//
// --check needs each output valid. Building the index is not enough on a
// store with history: when the index is already there (a GC root of an
// earlier sample run), Nix builds nothing, and the per-archive outputs
// below it may have been collected since. So every derivation checked
// is realised first, in one call.
func TestDeterministic(t *testing.T) {
	requireNix(t)
	drv := mustNix(t, append([]string{"nix-instantiate"}, sampleArgs(t, "index")...)...)
	var checked []string
	for _, d := range strings.Fields(mustNix(t, "nix-store", "-qR", drv)) {
		if !strings.HasSuffix(d, ".drv") || strings.HasSuffix(d, ".tar.xz.drv") || strings.HasSuffix(d, ".tar.gz.drv") || strings.HasSuffix(d, ".zip.drv") {
			continue
		}
		checked = append(checked, d)
	}
	mustNix(t, append([]string{"nix-store", "--realise"}, checked...)...)
	for _, d := range checked {
		mustNix(t, "nix-build", "--check", "--no-out-link", d)
	}
	if len(checked) < 10 {
		t.Errorf("checked only %d derivations", len(checked))
	}
	t.Logf("%d derivations rebuilt with identical outputs", len(checked))
}

// TestFlakeCheck runs `nix flake check` offline, with nixpkgs replaced by
// the stand-in that compiles the binary from source in the sandbox.
func TestFlakeCheck(t *testing.T) {
	requireNix(t)
	if testing.Short() {
		t.Skip("-short leaves out the flake check (minutes: it compiles the binary in the sandbox)")
	}
	root := repoRoot()
	standIn := filepath.Join(t.TempDir(), "nixpkgs")
	cmd := exec.Command(filepath.Join(root, "scripts", "nixpkgs-stand-in.sh"), standIn)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stand-in: %v\n%s", err, out)
	}
	registry := filepath.Join(t.TempDir(), "registry.json")
	if err := os.WriteFile(registry, []byte(`{"flakes":[],"version":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	flake := checkoutCopy(t, root)
	_, stderr, err := nix(t, "nix", "flake", "check", "--option", "flake-registry", registry,
		"--override-input", "nixpkgs", "path:"+standIn, "path:"+flake)
	if err != nil {
		t.Fatalf("nix flake check: %v\n%s", err, stderr)
	}
	// No noise of the flake's own: no trace (the old name detector's
	// deprecation, evaluated once per system), no unknown output (a
	// top-level lib, which Nix 2.34 warns about).
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "trace:") || strings.Contains(l, "unknown flake output") {
			t.Errorf("nix flake check printed %q", l)
		}
	}
	out := mustNix(t, "nix", "build", "--no-link", "--json", "--option", "flake-registry", registry,
		"--override-input", "nixpkgs", "path:"+standIn, "path:"+flake+`#features.sample."1.0.0"`)
	var built []struct {
		Outputs map[string]string `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(out), &built); err != nil || len(built) != 1 {
		t.Fatalf("nix build --json: %v: %s", err, out)
	}
	diffPaths(t, filepath.Join(root, "tests", "golden", "sample", "1.0.0"), built[0].Outputs["out"])

	// Hydra has one job per archive, beside the aggregate.
	flakeArgs := []string{"--option", "flake-registry", registry, "--override-input", "nixpkgs", "path:" + standIn}
	system := strings.Trim(mustNix(t, "nix-instantiate", "--eval", "-E", "builtins.currentSystem"), `"`)
	evalRaw := func(attr string) string {
		return mustNix(t, append([]string{"nix", "eval", "--raw"}, append(flakeArgs, "path:"+flake+"#"+attr)...)...)
	}
	job := evalRaw(`hydraJobs.features.` + system + `.sample."1.0.0".cuda_demo_rt.linux-x86_64.None.drvPath`)
	entry := evalRaw(`features.sample."1.0.0".entries.cuda_demo_rt.linux-x86_64.None.features.drvPath`)
	if job != entry || !strings.HasSuffix(job, "-features.json.drv") {
		t.Errorf("hydra job for one archive is %q, want the detection %q", job, entry)
	}

	// The package carries its Nix library: `nix run .# -- process-manifests`
	// works from a directory that has no nix/.
	dir := copySample(t)
	run := exec.Command("nix", append(append(append([]string{}, nixOptions...), "run"), append(flakeArgs,
		"path:"+flake, "--", "process-manifests", "--nix-option", "substituters=", "--redist-name", "sample",
		"--version", "1.0.0", "file://"+dir, dir)...)...)
	run.Dir = t.TempDir()
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("nix run .# -- process-manifests: %v\n%s", err, out)
	}
	diffPaths(t, filepath.Join(root, "tests", "golden", "sample", "1.0.0", "feature_1.0.0.json"), filepath.Join(dir, "feature_1.0.0.json"))
}

// TestStandInEnforcesBuildGoModuleContract: the offline stand-in refuses
// what nixos-25.11's buildGoModule refuses (a top-level CGO_ENABLED, which
// meets the env.CGO_ENABLED buildGoModule sets; an env attribute that the
// derivation already has; a missing vendorHash), and accepts nix/package.nix.
func TestStandInEnforcesBuildGoModuleContract(t *testing.T) {
	requireNix(t)
	expr := filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "stand-in-contract.nix")
	standIn := filepath.Join(repoRoot(), "tests", "nixpkgs-stand-in")
	for _, tc := range []struct{ attrs, want string }{
		{"package", `"cuda-redist-find-features-1"`},
		{`{"vendorHash": null, "env": {"CGO_ENABLED": 0}}`, `"p-1"`},
		{`{"vendorHash": null, "CGO_ENABLED": 0}`, "overlapping: CGO_ENABLED"},
		{`{"vendorHash": null, "env": {"CGO_ENABLED": 0, "GOFLAGS": "-x"}}`, "overlapping: GOFLAGS"},
		{`{"vendorHash": null, "env": {"CGO_ENABLED": 2}}`, "CGO_ENABLED must be 0 or 1"},
		{`{"env": {"CGO_ENABLED": 0}}`, "vendorHash is missing"},
	} {
		out, stderr, err := nix(t, "nix-instantiate", "--eval", expr, "--argstr", "standIn", standIn,
			"--argstr", "pkgFile", filepath.Join(repoRoot(), "nix", "package.nix"), "--argstr", "attrs", tc.attrs)
		if !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%s: got %q (%v), want %q\n%s", tc.attrs, out, err, tc.want, stderr)
		}
		if strings.HasPrefix(tc.want, `"`) != (err == nil) {
			t.Errorf("%s: error %v, want success %v", tc.attrs, err, strings.HasPrefix(tc.want, `"`))
		}
	}
}

// checkoutCopy copies the files of root's checkout to a new directory, as
// they are in the working tree: those git tracks and the untracked ones it
// does not ignore (what a clone of the change would hold). Files deleted
// in the working tree, and links, are left out.
func checkoutCopy(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard").Output()
	if err != nil {
		testenv.Unavailable(t, "git ls-files: "+err.Error())
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) == 0 || files[0] == "" {
		t.Fatal("no git-tracked files to copy")
	}
	dst := t.TempDir()
	for _, rel := range files {
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// writeArgsFile writes args as JSON to a new file, for a Nix file's
// argsFile argument, and returns its path.
func writeArgsFile(t *testing.T, args any) string {
	t.Helper()
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(argsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return argsFile
}
