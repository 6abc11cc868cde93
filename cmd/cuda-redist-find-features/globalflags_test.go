package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionPlacement: --version before a command is refused (it could
// be the program's version or the command's manifest filter), naming
// both spellings, whatever root flags come with it; after the command it
// is the filter; alone (or as the version command) the version.
func TestVersionPlacement(t *testing.T) {
	dir := t.TempDir()
	url := newRedistServer(t).URL + "/redist/"
	for _, c := range []struct {
		args   []string
		code   int
		want   string
		unwant string
	}{
		{[]string{"--version", "process-manifests", "x", "y"}, exitUsage, "--version before the command is ambiguous", ""},
		{[]string{"--version", "process-manifests", "x", "y"}, exitUsage, "`" + prog + " process-manifests --version VERSION ...`", ""},
		{[]string{"--version=1.0.0", "process-manifests", "u", dir}, exitUsage, "--version=1.0.0 before the command", ""},
		{[]string{"--version=1.0.0"}, exitUsage, "`" + prog + " COMMAND --version VERSION ...`", ""},
		{[]string{"--log-level", "INFO", "--version", "download-manifests", "u", dir}, exitUsage, "ambiguous", ""},
		{[]string{"-q", "--version", "detect", "."}, exitUsage, "ambiguous", ""},
		{[]string{"--log-level", "INFO", "download-manifests", "--version", "1.1.0", url, dir}, exitOK, "", "ambiguous"},
		{[]string{"download-manifests", url, dir, "--version", "1.0.0"}, exitOK, "", "ambiguous"},
		{[]string{"process-manifests", "--version", "u", dir}, exitUsage, "takes URL and MANIFEST_DIR", "ambiguous"},
		{[]string{"version", "extra"}, exitUsage, "version takes no arguments", ""},
		{[]string{"-v"}, exitUsage, "-v is --verbose; the program's version: --version", ""},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || (c.unwant != "" && strings.Contains(stderr, c.unwant)) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q without %q", c.args, code, stderr, c.code, c.want, c.unwant)
		}
		if strings.HasPrefix(stdout, prog+" ") {
			t.Errorf("%q: printed the version", c.args)
		}
	}
	// The filters took one manifest each, nothing else.
	got, _ := filepath.Glob(filepath.Join(dir, "redistrib_*.json"))
	if len(got) != 2 || filepath.Base(got[0]) != "redistrib_1.0.0.json" || filepath.Base(got[1]) != "redistrib_1.1.0.json" {
		t.Errorf("download-manifests --version wrote %v", got)
	}
}

// TestVerbose: -v logs at INFO (report's "wrote" lines), -vv at DEBUG
// (print-buildredist's "reading"); without them neither is shown; -v
// with -q or --log-level is refused.
func TestVerbose(t *testing.T) {
	sample := filepath.Join("..", "..", "tests", "golden", "sample", "2.0.0")
	for _, c := range []struct {
		args        []string
		info, debug bool
	}{
		{nil, false, false},
		{[]string{"-v"}, true, false},
		{[]string{"--verbose"}, true, false},
		{[]string{"-vv"}, true, true},
		{[]string{"--log-level", "DEBUG"}, true, true},
	} {
		args := append(append([]string{}, c.args...), "report", "--out", t.TempDir(), sample)
		code, _, stderr := runCLI(args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if got := strings.Contains(stderr, "level=INFO msg=wrote"); got != c.info {
			t.Errorf("%q: INFO shown %v, want %v:\n%s", args, got, c.info, stderr)
		}
		args = append(append([]string{}, c.args...), "print-buildredist", sample)
		code, _, stderr = runCLI(args...)
		if got := strings.Contains(stderr, "level=DEBUG msg=reading"); code != exitOK || got != c.debug {
			t.Errorf("%q: exit %d, DEBUG shown %v, want %v:\n%s", args, code, got, c.debug, stderr)
		}
	}
	for _, args := range [][]string{{"-v", "-q", "detect", "."}, {"-v", "--log-level", "ERROR", "detect", "."}} {
		if code, _, stderr := runCLI(args...); code != exitUsage || !strings.Contains(stderr, "give one") {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
}
