package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resultsDir is a directory as process-manifests leaves it: manifests,
// feature files and aggregate_<version> links, here to the golden
// aggregate directories of the sample.
func resultsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	golden, err := filepath.Abs(filepath.Join("..", "..", "tests", "golden", "sample"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if err := os.Symlink(filepath.Join(golden, v), filepath.Join(dir, "aggregate_"+v)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("..", "..", "sample", "redistrib_"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "redistrib_"+v+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCommandsReadResultsDirectory: print-buildredist and
// print-dependencies read the newest release of a results directory (or
// --version's), the same as its aggregate directory; report reads all
// of them; diff compares the two newest.
func TestCommandsReadResultsDirectory(t *testing.T) {
	dir := resultsDir(t)
	golden := filepath.Join("..", "..", "tests", "golden", "sample")
	for _, c := range []struct{ viaDir, direct []string }{
		{[]string{"print-buildredist", dir}, []string{"print-buildredist", filepath.Join(golden, "2.0.0")}},
		{[]string{"print-buildredist", "--version", "1.0.0", dir}, []string{"print-buildredist", filepath.Join(golden, "1.0.0", "buildRedist.json")}},
		{[]string{"print-dependencies", "--json", dir}, []string{"print-dependencies", "--json", filepath.Join(golden, "2.0.0")}},
		{[]string{"diff", dir}, []string{"diff", filepath.Join(golden, "1.0.0"), filepath.Join(golden, "2.0.0")}},
		{[]string{"diff", filepath.Join(dir, "aggregate_1.0.0"), dir}, []string{"diff", filepath.Join(golden, "1.0.0"), filepath.Join(golden, "2.0.0")}},
	} {
		code, got, stderr := runCLI(c.viaDir...)
		_, want, _ := runCLI(c.direct...)
		if code != exitOK || got != want || got == "" {
			t.Errorf("%v: exit %d, stderr %q; stdout differs from %v:\n%s\nwant:\n%s", c.viaDir, code, stderr, c.direct, got, want)
		}
	}
	out := t.TempDir()
	code, _, stderr := runCLI("report", "--out", out, dir)
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{`"version": "1.0.0"`, `"version": "2.0.0"`} {
		if !strings.Contains(string(data), v) {
			t.Errorf("report.json lacks the release %s", v)
		}
	}
}

// TestResultsDirectoryErrors: a directory without results says to run
// process-manifests; a --version that is not there names those that are.
func TestResultsDirectoryErrors(t *testing.T) {
	empty := t.TempDir()
	dir := resultsDir(t)
	// A link whose store path is gone is an error, not skipped (the
	// newest release would be another).
	dangling := resultsDir(t)
	if err := os.Symlink("/nonexistent", filepath.Join(dangling, "aggregate_9.9.9")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"print-buildredist", empty}, exitFail, "run `process-manifests URL " + empty + "` first"},
		{[]string{"report", "--out", t.TempDir(), empty}, exitFail, "no aggregate_<version>"},
		{[]string{"diff", empty, dir}, exitFail, "neither an aggregate directory"},
		{[]string{"print-dependencies", "--version", "3.0.0", dir}, exitUsage, "no aggregate of version 3.0.0 (there are: 1.0.0, 2.0.0)"},
		{[]string{"print-dependencies", "--version", "3.0.0", filepath.Join(dir, "redistrib_1.0.0.json")}, exitUsage, "is a file"},
		{[]string{"diff", filepath.Join(dir, "aggregate_1.0.0")}, exitUsage, "one release there"},
		{[]string{"diff", dir, dir, dir}, exitUsage, "given 3"},
		{[]string{"print-buildredist", dangling}, exitFail, filepath.Join(dangling, "aggregate_9.9.9") + " is no aggregate directory"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
