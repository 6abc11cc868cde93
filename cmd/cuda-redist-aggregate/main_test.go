package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
)

// golden is the sample's golden results, whose merged index merge-index
// must reproduce from the two releases' indexes.
const golden = "../../tests/golden/sample"

func runArgs(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestMergeIndexFiles: merge-index over the sample's two indexes writes
// what lib/aggregate merges, the golden merged index, to stdout and to
// --out.
func TestMergeIndexFiles(t *testing.T) {
	files := []string{filepath.Join(golden, "1.0.0", "index.json"), filepath.Join(golden, "2.0.0", "index.json")}
	want, err := aggregate.MergeIndexFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(golden, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, committed) {
		t.Fatalf("lib/aggregate's merge differs from %s/index.json", golden)
	}
	code, stdout, stderr := runArgs(append([]string{"merge-index"}, files...)...)
	if code != 0 || stdout != string(want) {
		t.Fatalf("merge-index: exit %d, stderr %q; stdout is the merged index: %v", code, stderr, stdout == string(want))
	}
	out := filepath.Join(t.TempDir(), "index.json")
	if code, _, stderr := runArgs(append([]string{"merge-index", "--out", out}, files...)...); code != 0 {
		t.Fatalf("merge-index --out: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Errorf("merge-index --out wrote %d bytes (%v), want the merged index", len(got), err)
	}
}

// TestErrors: misuse exits 2 with the usage, a failed build 1 with the
// cause named, help 0.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	missing, broken := filepath.Join(dir, "no-attrs.json"), filepath.Join(dir, "broken-index.json")
	if err := os.WriteFile(broken, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{nil, 2, "usage: cuda-redist-aggregate"},
		{[]string{"detect"}, 2, `unknown command "detect"`},
		{[]string{"aggregate", "extra"}, 2, "aggregate takes no arguments"},
		{[]string{"aggregate", "--no-such-flag"}, 2, "unknown flag"},
		{[]string{"aggregate", "--attrs", missing}, 1, "no-attrs.json"},
		{[]string{"merge-index", broken}, 1, "broken-index.json"},
		{[]string{"--help"}, 0, ""},
		{[]string{"aggregate", "--help"}, 0, "--attrs"},
	} {
		code, _, stderr := runArgs(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.inStderr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.inStderr)
		}
	}
}

// TestPrintBuildRedist: print-buildredist --json, the buildRedist
// derivation's builder, writes an aggregate's buildRedist.json as the
// aggregate wrote it (the golden file, canonical) from the directory or
// the file, to stdout and to --out.
func TestPrintBuildRedist(t *testing.T) {
	dir := filepath.Join(golden, "2.0.0")
	want, err := os.ReadFile(filepath.Join(dir, "buildRedist.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{dir, filepath.Join(dir, "buildRedist.json")} {
		code, stdout, stderr := runArgs("print-buildredist", "--json", arg)
		if code != 0 || stdout != string(want) {
			t.Errorf("print-buildredist --json %s: exit %d, stderr %q; stdout is the golden buildRedist.json: %v", arg, code, stderr, stdout == string(want))
		}
	}
	out := filepath.Join(t.TempDir(), "out", "buildRedist.json")
	if code, _, stderr := runArgs("print-buildredist", "--json", "--out", out, dir); code != 0 {
		t.Fatalf("print-buildredist --out: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Errorf("print-buildredist --out wrote %d bytes (%v), want the golden buildRedist.json", len(got), err)
	}
}

// TestPrintBuildRedistRefuses: the table is the CLI's, and what is no
// buildRedist.json is refused, named.
func TestPrintBuildRedistRefuses(t *testing.T) {
	dir := filepath.Join(golden, "2.0.0")
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"print-buildredist", dir}, 2, "prints JSON only (--json)"},
		{[]string{"print-buildredist", "--json"}, 2, "print-buildredist takes one FILE or DIR"},
		{[]string{"print-buildredist", "--json", filepath.Join(dir, "index.json")}, 1, `index.json: json: unknown field "2.0.0" (want a buildRedist.json)`},
		{[]string{"print-buildredist", "--json", filepath.Join(dir, "no-such.json")}, 1, "no-such.json"},
	} {
		code, _, stderr := runArgs(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.inStderr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.inStderr)
		}
	}
}
