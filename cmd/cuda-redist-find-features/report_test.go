package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	sample := filepath.Join("..", "..", "tests", "golden", "sample")
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := runCLI("report", "--out", out, filepath.Join(sample, "2.0.0"), filepath.Join(sample, "1.0.0"))
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	if stdout != filepath.Join(out, "report.html")+"\n"+filepath.Join(out, "report.json")+"\n" {
		t.Errorf("stdout %q", stdout)
	}
	// The same JSON as the library's golden, and valid against the schema.
	got, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "lib", "report", "testdata", "sample-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("report.json differs from lib/report/testdata/sample-report.json")
	}
	s := compileSchema(t, "print-feature-schema", "--format", "report")
	if err := validateFile(t, s, filepath.Join(out, "report.json")); err != nil {
		t.Errorf("report.json against its schema: %v", err)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), `id="cov/1.0.0/linux-x86_64/cuda_demo_rt/None/sm_90" class="sass ptx top"`) {
		t.Errorf("report.html lacks the sm_90 cell of cuda_demo_rt (%v)", err)
	}
}

// TestReportSchema: the report of real releases is valid against the
// schema, and the schema can fail.
func TestReportSchema(t *testing.T) {
	s := compileSchema(t, "print-feature-schema", "--format", "report")
	realOut := filepath.Join(t.TempDir(), "real")
	real := filepath.Join("..", "..", "lib", "report", "testdata", "real", "cuda")
	if code, _, stderr := runCLI("report", "--out", realOut, "--against", "11.8.0", filepath.Join(real, "11.8.0"), filepath.Join(real, "12.2.2")); code != exitOK {
		t.Fatalf("report of the real fixtures: %s", stderr)
	}
	if err := validateFile(t, s, filepath.Join(realOut, "report.json")); err != nil {
		t.Errorf("real report.json against its schema: %v", err)
	}
	// The schema can fail.
	bad := writeTemp(t, "bad.json", `{"redist": "x", "releases": [{"version": "1", "platforms": [], "architectures": ["compute_90"], "packages": [], "graph": {"nodes": [], "edges": []}}]}`)
	if validateFile(t, s, bad) == nil {
		t.Error("schema accepted an architecture compute_90")
	}
}

func TestReleaseDiffCommand(t *testing.T) {
	real := filepath.Join("..", "..", "lib", "report", "testdata", "real", "cuda")
	code, stdout, stderr := runCLI("diff", filepath.Join(real, "11.8.0"), filepath.Join(real, "12.2.2"))
	if code != exitOK {
		t.Fatalf("diff: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"cuda 11.8.0 -> 12.2.2\n", "Packages added:\n- cuda_opencl\n- libnvjitlink\n", "Packages removed:\n- cuda_memcheck\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, stdout)
		}
	}
	sample := filepath.Join("..", "..", "tests", "golden", "sample", "2.0.0")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", sample}, exitUsage, "diff takes OLD and NEW"},
		{[]string{"diff", sample, filepath.Join(real, "12.2.2")}, exitFail, "is sample but"},
		{[]string{"diff", sample, "/nonexistent"}, exitFail, "/nonexistent"},
		{[]string{"report", sample}, exitUsage, "--out"},
		{[]string{"report", "--out", t.TempDir()}, exitUsage, "one or more DIR"},
		{[]string{"report", "--out", t.TempDir(), "--against", "0.1", sample}, exitFail, "--against 0.1"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestReportGoesOnWithoutAnUnreadableAggregate: an aggregate directory
// that cannot be read is one error naming it; the report of the others is
// written all the same, and the exit code is 1.
func TestReportGoesOnWithoutAnUnreadableAggregate(t *testing.T) {
	sample := filepath.Join("..", "..", "tests", "golden", "sample")
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "index.json"), []byte(`{"sample": `), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := runCLI("report", "--out", out, filepath.Join(sample, "2.0.0"), broken, filepath.Join(sample, "1.0.0"))
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if !strings.Contains(stderr, "aggregate "+broken+": ") || !strings.Contains(stderr, "report written without 1 of 3 aggregates") {
		t.Errorf("stderr does not name the unread aggregate:\n%s", stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "report.json"))
	want, _ := os.ReadFile(filepath.Join("..", "..", "lib", "report", "testdata", "sample-report.json"))
	if err != nil || string(got) != string(want) {
		t.Errorf("the report of the two readable aggregates differs from the golden (%v)", err)
	}
	if !strings.Contains(stdout, "report.json") {
		t.Errorf("stdout %q", stdout)
	}
}
