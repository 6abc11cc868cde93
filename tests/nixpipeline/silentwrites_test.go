package nixpipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestProcessManifestsStdoutFull: process-manifests with stdout on
// /dev/full writes its files, then exits 1 saying the list of them could
// not be written, and why. On main it exited 0: the list was lost in
// silence.
func TestProcessManifestsStdoutFull(t *testing.T) {
	requireNix(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		testenv.Unavailable(t, "no /dev/full: "+err.Error())
	}
	defer full.Close()
	dir := copySample(t)
	code, stderr := runTo(t, full, nil, "process-manifests", "--nix-option", "substituters=", "--offline", "--redist-name", "sample", "--version", "2.0.0", "file://"+dir, dir)
	if code != 1 || !strings.Contains(stderr, "writing the results to stdout (/dev/full): write /dev/stdout: no space left on device") {
		t.Errorf("exit %d, want 1 and stdout's failure said; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature_2.0.0.json")); err != nil {
		t.Errorf("the results were not written: %v", err)
	}
}

// checkJSONSummaryError: stdout is JSON lines whose last is
// {"summary": {"error": {message, exitCode, signal}}}, with the run's
// exit code and a message holding want.
func checkJSONSummaryError(t *testing.T, stdout string, code int, want, signal string) {
	t.Helper()
	var last []byte
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Errorf("a line is not JSON: %q", sc.Text())
		}
		last = append(last[:0], sc.Bytes()...)
	}
	var s struct {
		Summary struct {
			Error *struct {
				Message  string `json:"message"`
				ExitCode int    `json:"exitCode"`
				Signal   string `json:"signal"`
			} `json:"error"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(last, &s); err != nil || s.Summary.Error == nil {
		t.Fatalf("the last line is no summary with an error (%v); stdout:\n%s", err, stdout)
	}
	if e := s.Summary.Error; e.ExitCode != code || !strings.Contains(e.Message, want) || e.Signal != signal {
		t.Errorf("summary error %+v, want exit code %d, a message with %q, signal %q", *e, code, want, signal)
	}
}

// TestCheckNixpkgsJSONWhateverStops: check-nixpkgs --json ends its
// output with a summary whatever stops the run: no nix on PATH, TMPDIR
// full, TMPDIR not a directory, SIGTERM. On main stdout was empty in
// each case.
func TestCheckNixpkgsJSONWhateverStops(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	pkgs := packagesDir(t, goodPackages)
	args := []string{"check-nixpkgs", "--json", "--nix-option", "substituters=", "--url", "file://" + sample, pkgs, sample}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  func() []string
		want string
	}{
		{"no nix on PATH", func() []string { return []string{"PATH=" + t.TempDir()} }, `"nix-instantiate": executable file not found`},
		{"TMPDIR full", func() []string { return []string{"TMPDIR=" + testenv.FullDir(t, nil)} }, "no space left on device"},
		{"TMPDIR not a directory", func() []string { return []string{"TMPDIR=" + notDir} }, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			code, stderr := runTo(t, &stdout, tc.env(), args...)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			checkJSONSummaryError(t, stdout.String(), code, tc.want, "")
		})
	}
	t.Run("SIGTERM", func(t *testing.T) {
		files := map[string]string{}
		for k, v := range goodPackages {
			files[k] = v
		}
		files["loop.nix"] = `{ buildRedist }: let n = builtins.foldl' (a: i: builtins.foldl' (b: j: b + 1) a (builtins.genList (x: x) 100000)) 0 (builtins.genList (x: x) 100000); in
buildRedist { redistName = "sample"; pname = "loop"; outputs = [ "out" (toString n) ]; }`
		loop := packagesDir(t, files)
		token := randomToken(t)
		var stdout bytes.Buffer
		cmd, exited, stderr := startRunTo(t, &stdout, t.TempDir(), token, "check-nixpkgs", "--json", "--eval-only", "--url", "file://"+sample, loop, sample)
		waitForProcess(t, "", "crff-allowed="+loop, exited, stderr)
		endsWith143(t, cmd, exited, stderr, "check-nixpkgs", token)
		checkJSONSummaryError(t, stdout.String(), 143, "interrupted by SIGTERM", "SIGTERM")
	})
}

// TestCheckNixpkgsFixNotWritten: --fix on a packages directory the
// system will not write prints the diff, an ERROR per file naming the
// system's reason, and ends saying --fix could not write them (exit 1);
// the files are as they were. On main the last line said "3 error(s):
// the Nixpkgs builds of these packages would fail". Root ignores mode
// bits: the read-only directory is a read-only bind mount, the full disk
// a filled 64 KiB tmpfs (testenv).
func TestCheckNixpkgsFixNotWritten(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	examples := readDir(t, examplePackages(t, "libdemo_variant.nix"))
	populate := func(dir string) {
		for name, text := range examples {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name, reason string
		dir          func() string
	}{
		{"read-only", "read-only file system", func() string {
			dir := t.TempDir()
			populate(dir)
			testenv.ReadOnlyDir(t, dir)
			return dir
		}},
		{"full disk", "no space left on device", func() string { return testenv.FullDir(t, populate) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason := tc.reason
			if os.Geteuid() != 0 && tc.name == "read-only" {
				reason = "permission denied"
			}
			pkgs := tc.dir()
			code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--hints=false")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			checkNotWrittenLines(t, lines, reason)
			if !strings.Contains(stderr, "--fix could not write 3 file(s)") || strings.Contains(stderr, "builds of these packages would fail") ||
				!strings.Contains(stderr, ", 3 file(s) not written") {
				t.Errorf("stderr does not say --fix could not write the files:\n%s", stderr)
			}
			got := readDir(t, pkgs)
			delete(got, "filler")
			if diff := cmp.Diff(examples, got); diff != "" {
				t.Errorf("the files changed (-before +after):\n%s", diff)
			}
		})
	}
}

// checkNotWrittenLines: the output is the diff and three ERROR lines,
// each saying its file was not written, for reason.
func checkNotWrittenLines(t *testing.T, lines []string, reason string) {
	t.Helper()
	var notWritten []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "ERROR ") {
			continue
		}
		notWritten = append(notWritten, l)
		if !strings.Contains(l, ": not written, left as it was: ") || !strings.HasSuffix(l, ": "+reason) {
			t.Errorf("ERROR line %q, want one saying not written: %s", l, reason)
		}
	}
	if len(notWritten) != 3 || !contains(lines, "+++ b/cuda_demo_rt.nix") {
		t.Errorf("want the diff and 3 ERROR lines; stdout:\n%s", strings.Join(lines, "\n"))
	}
}
