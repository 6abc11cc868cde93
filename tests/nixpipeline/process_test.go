package nixpipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// process runs the binary's process-manifests over dir, fetching from
// dir with a file:// URL. No --nix-option extra-sandbox-paths: the CLI
// adds local archives to the store itself.
func process(t *testing.T, dir string, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"process-manifests",
		"--nix-option", "substituters=",
		"--redist-name", "sample",
	}, extra...)
	args = append(args, "file://"+dir, dir)
	return runProgram(t, args...)
}

// builtDerivations lists the derivations a Nix command's log says it
// built: Nix's own "building 'X.drv'" lines, or the CLI's event lines
// ("fetched|unpacked|detected|built|failed NAME ...").
func builtDerivations(stderr string) []string {
	var built []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "building '") || eventLine.MatchString(line) {
			built = append(built, line)
		}
	}
	return built
}

var eventLine = regexp.MustCompile(`^(fetched|unpacked|detected|built|failed) [^ ]+( \(|,| on |$)`)

// TestProcessManifestsMatchesGolden: the CLI's files are the aggregate
// derivations' own, byte for byte (the golden files, and what nix-build
// of default.nix's features.sample gives), and a second run builds nothing.
func TestProcessManifestsMatchesGolden(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// A stale feature file is replaced; it must not be taken for a manifest.
	if err := os.WriteFile(filepath.Join(dir, "feature_1.0.0.json"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "index.json")
	code, stdout, stderr := process(t, dir, "--index", index)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
		diffPaths(t, filepath.Join(buildSample(t, `"`+v+`"`), "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
	}
	diffPaths(t, filepath.Join(golden, "index.json"), index)
	diffPaths(t, buildSample(t, "index"), index)
	// Two feature files, two aggregate links, the index.
	if want := 5; len(strings.Fields(stdout)) != want {
		t.Errorf("stdout lists %q, want %d files", stdout, want)
	}

	// Everything is in the store now: the second run builds nothing.
	code, stdout2, stderr := process(t, dir, "--index", index)
	if code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	if built := builtDerivations(stderr); len(built) != 0 {
		t.Errorf("the second run built %d derivations:\n%s", len(built), strings.Join(built, "\n"))
	}
	if stdout2 != stdout {
		t.Errorf("second run wrote %q, first %q", stdout2, stdout)
	}
}

// TestProcessManifestsFailureKeepsCompleteFile: an entry that fails leaves
// the complete feature file of the last good run untouched, names the
// entry and exits 1; --partial writes what built to a file whose name says
// so, and says so on stderr; the index is not written.
func TestProcessManifestsFailureKeepsCompleteFile(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	complete := []byte("the complete result of an earlier run\n")
	final := filepath.Join(dir, "feature_1.0.0.json")
	if err := os.WriteFile(final, complete, 0o644); err != nil {
		t.Fatal(err)
	}
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "demo_samples", "linux-x86_64")["sha256"] = strings.Repeat("0", 63) + "1"
	})
	index := filepath.Join(t.TempDir(), "index.json")
	for _, partial := range []bool{false, true} {
		args := []string{"--version", "1.0.0", "--index", index}
		if partial {
			args = append(args, "--partial")
		}
		code, stdout, stderr := process(t, dir, args...)
		if code != 1 {
			t.Fatalf("partial=%v: exit %d, want 1\n%s", partial, code, stderr)
		}
		if !strings.Contains(stderr, "1 of 6 entries failed: 1.0.0 demo_samples/linux-x86_64/None") {
			t.Errorf("partial=%v: stderr does not name the failed entry:\n%s", partial, stderr)
		}
		if data, _ := os.ReadFile(final); string(data) != string(complete) {
			t.Errorf("partial=%v: feature_1.0.0.json was replaced by:\n%s", partial, data)
		}
		if _, err := os.Stat(index); err == nil {
			t.Errorf("partial=%v: the index was written from a failed run", partial)
		}
		checkPartialFile(t, dir, partial, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_2.0.0.json")); err == nil {
		t.Error("--version 1.0.0 also processed 2.0.0")
	}
}

// checkPartialFile: the failed run wrote the partial file, of the
// entries that built, and announced it, only with --partial.
func checkPartialFile(t *testing.T, dir string, partial bool, stdout, stderr string) {
	t.Helper()
	partialFile := filepath.Join(dir, "feature_1.0.0.partial.json")
	data, err := os.ReadFile(partialFile)
	if !partial {
		if err == nil {
			t.Error("a partial file was written without --partial")
		}
		return
	}
	if err != nil {
		t.Fatalf("--partial: %v", err)
	}
	if !strings.Contains(string(data), "cuda_demo_rt") || strings.Contains(string(data), "demo_samples") {
		t.Errorf("the partial file should hold the built entries only:\n%s", data)
	}
	if !strings.Contains(stdout, partialFile) || !strings.Contains(stderr, "PARTIAL") {
		t.Errorf("the partial file is not announced:\nstdout %s\nstderr %s", stdout, stderr)
	}
}

// TestProcessManifestsBadManifestFailsAlone: broken JSON, an unknown key
// and a duplicated key each fail their own manifest, named; the good
// manifests are still processed; the exit code is 1.
func TestProcessManifestsBadManifestFailsAlone(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	good, err := os.ReadFile(filepath.Join(dir, "redistrib_2.0.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"redistrib_3.0.0.json": `{"p": {"version": "1"`,
		"redistrib_3.0.1.json": `{"p": {"version": "1", "linux-riscv64": {}}}`,
		// Go's gjson would read the first sha256, Nix's fromJSON the last.
		"redistrib_3.0.2.json": strings.Replace(string(good), `"sha256":`, `"sha256": "`+strings.Repeat("e", 64)+`", "sha256":`, 1),
		// Valid, but past the default --max-archives (2,000).
		"redistrib_3.0.3.json": manyArchives(2001),
	}
	for name, body := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := process(t, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	// Each named once, JSON errors with the line and column.
	for _, want := range []string{
		"redistrib_3.0.0.json:1:22: not valid JSON: the input ends with arrays or objects still open (2)",
		`redistrib_3.0.1.json: package p: unknown key "linux-riscv64"`,
		`: package demo_src: platform source: duplicate key "sha256"`,
		"redistrib_3.0.3.json: lists 2001 archives, more than --max-archives 2000",
	} {
		if n := strings.Count(stderr, want); n != 1 {
			t.Errorf("stderr has %q %d times, want once:\n%s", want, n, stderr)
		}
	}
	if !regexp.MustCompile(`redistrib_3\.0\.2\.json:[0-9]+:[0-9]+: package demo_src`).MatchString(stderr) {
		t.Errorf("the duplicate key's line and column are not named:\n%s", stderr)
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if !strings.Contains(stdout, "feature_"+v+".json") {
			t.Errorf("good manifest %s not processed; stdout:\n%s", v, stdout)
		}
	}
	for _, v := range []string{"3.0.0", "3.0.1", "3.0.2", "3.0.3"} {
		if _, err := os.Stat(filepath.Join(dir, "feature_"+v+".json")); err == nil {
			t.Errorf("bad manifest %s got a feature file", v)
		}
	}
}

// manyArchives is a valid manifest of n packages of one archive each.
func manyArchives(n int) string {
	var b strings.Builder
	b.WriteString(`{"release_date": "2025-01-01"`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `, "pkg%05d": {"name": "p", "license": "Sample", "version": "1.0", "linux-x86_64": {"relative_path": "p/pkg%05d-1.0-archive.tar.xz", "sha256": "%064x", "md5": "%032x", "size": "1"}}`, i, i, i, i)
	}
	return b.String() + "}\n"
}

// TestProcessManifestsUnevaluableManifestFailsAlone: beside the two good
// manifests, one the Go parser refuses and one it accepts but Nix's
// fromJSON cannot read (a lone UTF-16 surrogate in a package's name,
// refused by Nix 2.8 and later alike; and, where the Nix at hand refuses
// it, a NUL) each fail alone, named, with Go's and Nix's message; the good manifests are built and their feature files
// written; the exit status is 1. (Without the one-by-one evaluation the
// second took the whole run down: nothing was built.)
func TestProcessManifestsUnevaluableManifestFailsAlone(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	good, err := os.ReadFile(filepath.Join(dir, "redistrib_2.0.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	unreadable := strings.Replace(string(good), `"name": "Demo sources"`, `"name": "Demo \ud800sources"`, 1)
	if unreadable == string(good) {
		t.Fatal("the sample's demo_src has no name to spoil")
	}
	bad := map[string]string{
		"redistrib_3.0.0.json": `{"p": {"version": "1", "linux-riscv64": {}}}`,
		"redistrib_3.0.1.json": unreadable,
	}
	wants := []*regexp.Regexp{
		regexp.MustCompile(`redistrib_3\.0\.0\.json: package p: unknown key "linux-riscv64"`),
		regexp.MustCompile(`redistrib_3\.0\.1\.json: does not evaluate: error: .*surrogate`),
	}
	// A NUL in a string: newer Nix refuses it (2.34), Nix 2.8 cuts the
	// string at it and so reads the manifest. Asked of the Nix at hand.
	if _, _, err := nix(t, "nix-instantiate", "--eval", "-E", `builtins.fromJSON "\"a\\u0000b\""`); err != nil {
		bad["redistrib_3.0.2.json"] = strings.Replace(string(good), `"name": "Demo sources"`, `"name": "Demo \u0000sources"`, 1)
		wants = append(wants, regexp.MustCompile(`redistrib_3\.0\.2\.json: does not evaluate: error: .*null bytes`))
	} else {
		t.Log("this Nix reads a NUL in a JSON string: no manifest with one")
	}
	for name, body := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := process(t, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range wants {
		if n := len(want.FindAllString(stderr, -1)); n != 1 {
			t.Errorf("stderr has %q %d times, want once:\n%s", want, n, stderr)
		}
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if _, err := os.Stat(filepath.Join(dir, "feature_"+v+".json")); err != nil || !strings.Contains(stdout, "feature_"+v+".json") {
			t.Errorf("good manifest %s not processed (%v); stdout:\n%s\nstderr:\n%s", v, err, stdout, stderr)
		}
	}
	for name := range bad {
		v := strings.TrimSuffix(strings.TrimPrefix(name, "redistrib_"), ".json")
		if _, err := os.Stat(filepath.Join(dir, "feature_"+v+".json")); err == nil {
			t.Errorf("bad manifest %s got a feature file", v)
		}
	}
}

// TestProcessManifestsDirectoryNameIsData: the manifest directory reaches
// Nix as data, never as source: a name holding Nix's interpolation syntax
// is not evaluated.
func TestProcessManifestsDirectoryNameIsData(t *testing.T) {
	requireNix(t)
	dir := filepath.Join(t.TempDir(), `${builtins.trace "EVALUATED-DIR" "x"}`)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("cp", "-r", filepath.Join(repoRoot(), "sample")+"/.", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	code, _, stderr := process(t, dir, "--version", "1.0.0")
	if strings.Contains(stderr, "EVALUATED-DIR") {
		t.Fatalf("the directory name was evaluated as Nix:\n%s", stderr)
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	diffPaths(t, filepath.Join(repoRoot(), "tests", "golden", "sample", "1.0.0", "feature_1.0.0.json"), filepath.Join(dir, "feature_1.0.0.json"))
}

// TestInstalledLayoutFindsNixLib: the CLI laid out as nix/package.nix
// installs it (bin/ with the two builders, and
// share/cuda-redist-find-features/{nix,lib/manifest}) finds its Nix
// library and its builders from any working directory, without --nix-lib.
func TestInstalledLayoutFindsNixLib(t *testing.T) {
	requireNix(t)
	prefix := t.TempDir()
	share := filepath.Join(prefix, "share", "cuda-redist-find-features")
	for _, c := range [][2]string{
		{programBinary(t), filepath.Join(prefix, "bin") + "/"},
		{detectorBinary(t), filepath.Join(prefix, "bin") + "/"},
		{aggregateBinary(t), filepath.Join(prefix, "bin") + "/"},
		{filepath.Join(repoRoot(), "nix"), share + "/"},
		{filepath.Join(repoRoot(), "lib", "manifest"), filepath.Join(share, "lib") + "/"},
	} {
		if err := os.MkdirAll(c[1], 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-r", c[0], c[1]).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	dir := copySample(t)
	cmd := exec.Command(filepath.Join(prefix, "bin", "cuda-redist-find-features"), "process-manifests",
		"--nix-option", "substituters=", "--redist-name", "sample", "--version", "2.0.0", "file://"+dir, dir)
	cmd.Dir = t.TempDir() // no nix/ here or above
	cmd.Env = append(os.Environ(), "CRFF_NIX_LIB=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installed binary: %v\n%s", err, out)
	}
	diffPaths(t, filepath.Join(repoRoot(), "tests", "golden", "sample", "2.0.0", "feature_2.0.0.json"), filepath.Join(dir, "feature_2.0.0.json"))
}

func TestProcessManifestsCleanup(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// An archive no other run has seen, so that everything this run needs
	// is new to the store.
	useNewSourceArchive(t, dir, "unique", true)
	code, _, stderr := process(t, dir, "--version", "2.0.0", "--cleanup", "--log-level", "INFO")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_2.0.0.json")); err != nil {
		t.Fatalf("no result: %v", err)
	}
	if !strings.Contains(stderr, "msg=cleanup") {
		t.Fatalf("no cleanup log line:\n%s", stderr)
	}
	// The run roots its outputs itself: Nix has nothing to warn about.
	if strings.Contains(stderr, "--add-root") {
		t.Errorf("Nix's --add-root warning shown:\n%s", stderr)
	}
	// Whatever the run added is gone again: the fetch, unpack and
	// detection of the new archive are not in the store any more.
	drv := mustNix(t, append(append([]string{"nix-instantiate"}, pipelineExpr(t, dir, "redistrib_2.0.0.json")...),
		"-A", "entries.demo_src.source.None.features")...)
	closure := strings.Fields(mustNix(t, "nix-store", "-qR", drv))
	checked := 0
	for _, d := range closure {
		if !strings.HasSuffix(d, ".drv") || !strings.Contains(d, "unique") {
			continue
		}
		out := mustNix(t, "nix-store", "-q", "--outputs", d)
		checked++
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--cleanup left %s in the store", out)
		}
	}
	if checked != 3 {
		t.Errorf("checked %d derivations of the unique archive, want 3 (fetch, unpack, detect)", checked)
	}
}

// TestProcessManifestsQuiet: --quiet hides Nix's build lines (the builds
// still run and the results are written).
func TestProcessManifestsQuiet(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// An archive no other run has seen, so that there is something to build.
	useNewSourceArchive(t, dir, "quiet", true)
	code, stdout, stderr := process(t, dir, "--version", "2.0.0", "--quiet", "--cleanup")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.TrimSpace(stdout) != filepath.Join(dir, "feature_2.0.0.json")+"\n"+filepath.Join(dir, "aggregate_2.0.0") {
		t.Errorf("stdout %q", stdout)
	}
	if stderr != "" {
		t.Errorf("--quiet: stderr:\n%s", stderr)
	}
}

// TestProcessManifestsNixBrokenForAll: when the pipeline does not
// evaluate for any manifest (here a Nix library whose cli.nix throws;
// as well a broken store or a full disk), the run fails with Nix's own
// error once, not with every manifest refused as if it were at fault.
func TestProcessManifestsNixBrokenForAll(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "cli.nix"), []byte("_: throw \"the library is broken\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := process(t, dir, "--nix-lib", lib)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the library is broken") || !strings.Contains(stderr, "no manifest evaluates alone either") {
		t.Errorf("Nix's error not given as the run's:\n%s", stderr)
	}
	if strings.Contains(stderr, "manifest does not evaluate") {
		t.Errorf("a manifest blamed:\n%s", stderr)
	}
}
