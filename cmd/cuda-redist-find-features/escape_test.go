package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// hostile is a name as an archive or a manifest could hold it: an OSC
// that retitles the terminal, a screen clear, a CR that overwrites the
// line, a C1 CSI, DEL, a newline and a right-to-left override.
const hostile = "lib\x1b]0;pwned\x07x\x1b[2J\ry\u009b31m\x7f\n\u202egnp.so.1"

// safe reports whether out can reach a terminal as it is.
func safe(out string) bool { return safetext.Text(out) == out }

// TestOutputEscapesNames: a hostile package name and soname reach stdout
// escaped in a print-* table, and in its JSON escaped too but decoding
// to the same names.
func TestOutputEscapesNames(t *testing.T) {
	detail := map[string]any{
		hostile: map[string]any{"linux-x86_64": map[string]any{"None": map[string]any{"sha256": "", "relativePath": "", "features": map[string]any{
			"providedLibs": []string{"libfine.so.1"}, "neededLibs": []string{hostile + ".so"}}}}},
	}
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "detail.json"), detail)
	code, stdout, stderr := runCLI("print-dependencies", dir)
	if code != 0 || !safe(stdout) || !strings.Contains(stdout, `lib\u001b]0;pwned\u0007x\u001b[2J\u000dy\u009b31m\u007f`) {
		t.Errorf("table: exit %d, %s\n%q", code, stderr, stdout)
	}
	code, stdout, _ = runCLI("print-dependencies", "--json", dir)
	var rows []dependencyRow
	if code != 0 || !safe(stdout) || json.Unmarshal([]byte(stdout), &rows) != nil || len(rows) != 1 || rows[0].Package != hostile {
		t.Errorf("--json: exit %d, rows %+v\n%q", code, rows, stdout)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestStderrEscapesNames: a hostile file name in an error message and in
// compare's lines on stderr is escaped.
func TestStderrEscapesNames(t *testing.T) {
	// The name of a file that does not exist, in the error message.
	missing := filepath.Join(t.TempDir(), hostile+".json")
	code, _, stderr := runCLI("print-dependencies", missing)
	if code != exitFail || !safe(stderr) || !strings.Contains(stderr, `pwned\u0007`) {
		t.Errorf("missing file: exit %d\n%q", code, stderr)
	}

	// compare names the file only one tree has.
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "x\x1b[2J\u202ey"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI("compare", a, b)
	if code != exitFail || !safe(stderr) || !strings.Contains(stderr, `x\u001b[2J\u202ey`) {
		t.Errorf("compare: exit %d\n%q", code, stderr)
	}
}

// TestLogEscapes: the logger quotes hostile values, strings and errors
// alike; the message survives decoding.
func TestLogEscapes(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, slog.LevelDebug).Warn("archive", "name", hostile, "error", errors.New("unpack "+hostile+": bad"))
	out := buf.String()
	if strings.Count(out, "\n") != 1 || safetext.Text(out) != out {
		t.Errorf("log line not escaped: %q", out)
	}
}
