package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
