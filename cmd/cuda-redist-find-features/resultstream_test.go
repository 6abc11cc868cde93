package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// devFull is /dev/full opened for writing: every write fails with ENOSPC,
// as stdout on a full disk does.
func devFull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		testenv.Unavailable(t, "no /dev/full: "+err.Error())
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestStdoutFullIsAnError: every command that prints results, with
// stdout on /dev/full, exits non-zero and says on stderr that writing to
// /dev/full failed and why; the files download-manifests writes are
// still written. On main download-manifests, report --out and docs
// exited 0: the files were written, the list of them lost in silence.
func TestStdoutFullIsAnError(t *testing.T) {
	srv := newRedistServer(t)
	golden := filepath.Join(testenv.RepoRoot(), "tests", "golden", "sample", "2.0.0")
	dir := downloadDir(t)
	tests := [][]string{
		{"download-manifests", "--version", "1.1.0", srv.URL + "/redist/", dir},
		{"report", "--out", t.TempDir(), golden},
		{"generate-docs"},
		{"version"},
		{"print-manifest-schema"},
		{"print-buildredist", golden},
		{"print-buildredist", "--json", golden},
		{"print-dependencies", golden},
		{"print-vendored", "--json", golden},
		{"coverage", "--cuda-capabilities", "8.9", golden},
	}
	for _, args := range tests {
		var stderr bytes.Buffer
		code := run(args, devFull(t), &stderr)
		msg := stderr.String()
		if code != exitFail || !strings.Contains(msg, "writing the results to /dev/full") || !strings.Contains(msg, "no space left on device") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 1 and a line saying writing to /dev/full failed: no space left on device", args[0], code, msg)
		}
		if n := strings.Count(msg, "no space left on device"); n != 1 {
			t.Errorf("%v: said %d times, want once:\n%s", args[0], n, msg)
		}
	}
	checkDownloadDir(t, dir, []string{"redistrib_1.1.0.json"})
}

// TestStdoutFullAfterFailure: a command that fails for a reason of its
// own keeps its exit code, and stdout's failure is said too.
func TestStdoutFullAfterFailure(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"coverage", "--json", "/nonexistent"}, devFull(t), &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "writing the results to /dev/full") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 and stdout's failure said", code, stderr.String())
	}
}

// TestJSONWhateverStopsTheRun: with --json, stdout is JSON however the
// run ends early: one {"error": {message, exitCode}} document for the
// commands that print one document, and a last line {"summary":
// {"error": {…}}} for check-nixpkgs, its exit code the run's. On main
// stdout was empty.
func TestJSONWhateverStopsTheRun(t *testing.T) {
	pkgs := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string // in the message
	}{
		{[]string{"check-nixpkgs", "--json"}, exitUsage, "check-nixpkgs takes PACKAGES_DIR"},
		{[]string{"check-nixpkgs", "--json", "--bogus", pkgs, pkgs}, exitUsage, "unknown flag: --bogus"},
		{[]string{"check-nixpkgs", "--bogus", "--json", pkgs, pkgs}, exitUsage, "unknown flag: --bogus"},
		{[]string{"check-nixpkgs", "--json", "--fix", pkgs, pkgs}, exitUsage, "not with --json"},
		{[]string{"check-nixpkgs", "--json", "/nonexistent", pkgs}, exitUsage, "/nonexistent"},
		{[]string{"check-nixpkgs", "--json", pkgs, "/nonexistent"}, exitFail, "/nonexistent"},
		{[]string{"print-buildredist", "--json"}, exitUsage, "takes one FILE or DIR"},
		{[]string{"print-buildredist", "--json", "/nonexistent"}, exitFail, "/nonexistent"},
		{[]string{"coverage", "--json=true", "/nonexistent"}, exitUsage, "--cuda-capabilities"},
		{[]string{"coverage", "--json", "--cuda-capabilities", "8.9", "/nonexistent"}, exitFail, "/nonexistent"},
		{[]string{"print-dependencies", "--json", "/nonexistent"}, exitFail, "/nonexistent"},
		{[]string{"print-vendored", "--json", "--soname-index", "/nonexistent", pkgs}, exitFail, "/nonexistent"},
	}
	for _, tc := range tests {
		checkJSONError(t, tc.args, tc.code, tc.want)
	}
	// --out sends the JSON elsewhere: stdout stays empty.
	code, stdout, _ := runCLI("print-dependencies", "--json", "--out", filepath.Join(t.TempDir(), "x.json"), "/nonexistent")
	if code != exitFail || stdout != "" {
		t.Errorf("--out: exit %d, stdout %q; want 1 and nothing on stdout", code, stdout)
	}
	// Without --json: nothing on stdout.
	if code, stdout, _ := runCLI("check-nixpkgs", pkgs, "/nonexistent"); code != exitFail || stdout != "" {
		t.Errorf("without --json: exit %d, stdout %q", code, stdout)
	}
}

// checkJSONError runs the CLI with args and checks its exit code and
// that stdout is the JSON error with that code and a message holding
// want; check-nixpkgs' summary line is checked against the finding
// schema too.
func checkJSONError(t *testing.T, args []string, wantCode int, want string) {
	t.Helper()
	code, stdout, stderr := runCLI(args...)
	if code != wantCode {
		t.Errorf("%v: exit %d, want %d\n%s", args, code, wantCode, stderr)
	}
	lines := args[0] == "check-nixpkgs"
	je, ok := jsonErrorOf(lines, stdout)
	if !ok {
		t.Errorf("%v: stdout is not the JSON error:\n%s", args, stdout)
		return
	}
	if je.ExitCode != code || !strings.Contains(je.Message, want) {
		t.Errorf("%v: JSON error %+v, want exit code %d and a message with %q", args, je, code, want)
	}
	if !lines {
		return
	}
	// What print-feature-schema --format finding describes.
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err == nil {
		err = schema.Validate("finding", v)
	}
	if err != nil {
		t.Errorf("%v: the summary against the finding schema: %v", args, err)
	}
}

// errorDoc is the JSON {"error": {…}} of a run that stopped early.
type errorDoc struct {
	Error *jsonError `json:"error"`
}

// jsonErrorOf reads stdout as the JSON of a run that stopped early: one
// document {"error": {…}}, or (lines) JSON lines whose last is
// {"summary": {"error": {…}}}.
func jsonErrorOf(lines bool, stdout string) (jsonError, bool) {
	last, n, ok := lastJSONLine(stdout)
	if !ok || n == 0 || (!lines && n != 1) {
		return jsonError{}, false
	}
	doc, ok := errorDocOf(lines, last)
	if !ok || doc.Error == nil {
		return jsonError{}, false
	}
	return *doc.Error, true
}

// lastJSONLine is stdout's last line and its number of lines, and false
// when a line is not JSON.
func lastJSONLine(stdout string) (last []byte, n int, ok bool) {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			return nil, 0, false
		}
		last = append(last[:0], sc.Bytes()...)
		n++
	}
	return last, n, true
}

// errorDocOf decodes the error document: the line itself, or (lines)
// the line's summary.
func errorDocOf(lines bool, line []byte) (errorDoc, bool) {
	var doc errorDoc
	if !lines {
		return doc, json.Unmarshal(line, &doc) == nil
	}
	var s struct {
		Summary *errorDoc `json:"summary"`
	}
	if json.Unmarshal(line, &s) != nil || s.Summary == nil {
		return doc, false
	}
	return *s.Summary, true
}

// TestJSONDocumentAfterSignal: a one-document command (print-vendored,
// coverage, …) with --json that a signal reached before its result
// writes no result but the error document, with the signal and its exit
// code. (Their runs are too short to signal from outside: the pieces are
// tested in-process, the whole path through check-nixpkgs in
// tests/nixpipeline.) On main the result was written and the signal
// ignored.
func TestJSONDocumentAfterSignal(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupt.Error{Signal: syscall.SIGTERM})
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, ctx: ctx}
	err := writeTableOrJSON(e, "", true, map[string]int{"result": 1}, nil)
	if err == nil || out.Len() != 0 {
		t.Fatalf("wrote %q, returned %v; want nothing written and the interruption", out.String(), err)
	}
	code, je := e.outcome("print-vendored", &runError{err}, &errOut)
	e.writeJSONError(jsonDocument, je)
	if want := `{"error":{"message":"interrupted by SIGTERM","exitCode":143,"signal":"SIGTERM"}}` + "\n"; code != 143 || out.String() != want {
		t.Errorf("exit %d, stdout %q; want 143 and %q", code, out.String(), want)
	}
	if !strings.Contains(errOut.String(), "print-vendored: interrupted by SIGTERM") {
		t.Errorf("stderr %q does not say interrupted", errOut.String())
	}
}
