package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestMessagesSayWhatToDo: each case of issue 32's messages, without Nix
// (the runner comes after the arguments).
func TestMessagesSayWhatToDo(t *testing.T) {
	tmp, file, detail := messagesFixture(t)
	for _, c := range []struct {
		args   []string
		code   int
		stream string // "stdout" or "stderr"
		want   string
	}{
		// A URL without a scheme: refused at once with the file:// form...
		{[]string{"process-manifests", "nowhere", "manifests"}, exitUsage, "stderr",
			`URL "nowhere" has no scheme and is no directory here: give https://... or, for a local directory, file://` + filepath.Join(tmp, "nowhere")},
		{[]string{"check-nixpkgs", "--url", "cuda=nowhere", tmp, "manifests"}, exitUsage, "stderr",
			`--url "nowhere" has no scheme and is no directory here`},
		{[]string{"download-manifests", "example.org/redist", "manifests"}, exitUsage, "stderr",
			`URL "example.org/redist" has no scheme`},
		// ... or taken as the directory it names (the run then stops at
		// the empty manifest directory, past the URL).
		{[]string{"process-manifests", "archives", "manifests"}, exitFail, "stderr",
			"no redistrib_<version>.json in manifests: pass the directory holding NVIDIA's manifests"},
		{[]string{"detect", file}, exitFail, "stderr", "DIR " + file + " is no directory"},
		{[]string{"print-dependencies", detail}, 0, "stdout", "no library of this release needs a soname of another package (nothing to show)\n"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		got := stderr
		if c.stream == "stdout" {
			got = stdout
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %s %q", c.args, code, stdout, stderr, c.code, c.stream, c.want)
		}
	}
}

// TestLogRecordClearsTheStatusLine: on a terminal, a log record written
// while the status line shows starts on a line of its own (the status
// line is cleared first), not glued to "detected 0/13".
func TestLogRecordClearsTheStatusLine(t *testing.T) {
	var term bytes.Buffer
	p := newNixProgress(&term)
	term.WriteString("detected 0/13")
	p.shown, p.last = true, "detected 0/13"
	e := &env{stderr: &term, log: newLogger(&term, slog.LevelWarn), logLevel: slog.LevelWarn}
	e.logAround(p)
	e.log.Warn("a warning")
	if got := term.String(); !strings.HasPrefix(got, "detected 0/13\r\033[Ktime=") || !strings.Contains(got, `level=WARN msg="a warning"`) {
		t.Errorf("terminal: %q, want the status line cleared before the record", got)
	}
}

// messagesFixture makes a scratch working directory with an archives/
// and a manifests/ directory, a regular file and an empty detail.json.
func messagesFixture(t *testing.T) (tmp, file, detail string) {
	t.Helper()
	tmp = t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(tmp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	for _, d := range []string{"archives", "manifests"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file, detail = filepath.Join(tmp, "a-file"), filepath.Join(tmp, "detail.json")
	for _, f := range []string{file, detail} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp, file, detail
}

// runReport runs checkRun.report over findings for a check of files
// package files (779 cases, 120 archives).
func runReport(asJSON, strict bool, files int, findings []nixpkgscheck.Finding) (string, string, error) {
	var stdout, stderr bytes.Buffer
	c := &checkRun{e: &env{stdout: &stdout, stderr: &stderr}, json: asJSON, strict: strict, hints: true,
		size: checkSize{files: files, cases: 779, archives: 120}}
	err := c.report(findings)
	return stdout.String(), stderr.String(), err
}

// TestCheckReportSummary: a clean check prints, with --json, one valid
// JSON document (the summary, as the finding schema describes it);
// without, nothing on stdout and one summary line on stderr.
func TestCheckReportSummary(t *testing.T) {
	out, _, err := runReport(true, false, 75, nil)
	var doc struct {
		Summary checkSummary `json:"summary"`
	}
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || doc.Summary.Files != 75 || strings.Count(out, "\n") != 1 {
		t.Errorf("--json, clean: %q, %v; want one JSON document with the summary", out, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err == nil {
		err = schema.Validate("finding", v)
	}
	if err != nil {
		t.Errorf("summary line against the finding schema: %v", err)
	}
	out, errOut, err := runReport(false, false, 75, nil)
	if err != nil || out != "" || errOut != "checked 75 package file(s), 779 case(s), 120 archive(s): 0 error(s), 0 warning(s), 0 hint(s)\n" {
		t.Errorf("clean: stdout %q, stderr %q, %v", out, errOut, err)
	}
}

// TestCheckReportNotChecked: files of a redist without manifests are a
// warning with counts: the run passes while something was checked, fails
// when nothing was, and fails with --strict.
func TestCheckReportNotChecked(t *testing.T) {
	notChecked := []nixpkgscheck.Finding{{Level: nixpkgscheck.LevelWarning, Kind: nixpkgscheck.KindNotChecked, Count: 18, Files: []string{"a.nix"},
		Message: "redist nvpl: 18 package file(s) not checked"}}
	out, errOut, err := runReport(false, false, 75, notChecked)
	if err != nil || out != "WARN  redist nvpl: 18 package file(s) not checked\n" || !strings.HasPrefix(errOut, "checked 57 package file(s) (18 not checked)") {
		t.Errorf("some not checked: stdout %q, stderr %q, %v; want a warning and exit 0", out, errOut, err)
	}
	if _, _, err = runReport(false, true, 75, notChecked); err == nil || !strings.Contains(err.Error(), "--strict: 18 package file(s) not checked") {
		t.Errorf("--strict: %v", err)
	}
	if _, _, err = runReport(false, false, 18, notChecked); err == nil || !strings.Contains(err.Error(), "nothing was checked") {
		t.Errorf("nothing checked: %v", err)
	}
}
