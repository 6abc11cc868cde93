package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// writeTemp writes a file of that name and content in a new temporary
// directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPrintBuildRedistWrongFormat: given another of the tool's formats or a
// manifest, print-buildredist and print-dependencies name the file, what
// it is, and the format they read (exit 1), instead of a bogus table.
func TestPrintBuildRedistWrongFormat(t *testing.T) {
	golden := filepath.Join("..", "..", "tests", "golden", "sample", "1.0.0")
	manifest := filepath.Join("..", "..", "sample", "redistrib_1.0.0.json")
	notJSON := writeTemp(t, "notes.txt", "hello\n")
	badDecl := writeTemp(t, "buildRedist.json", `{"libx": {"outputs": 3}}`)
	const wantDecl = "want a buildRedist.json (print-feature-schema --format buildredist)"
	const wantDetail = "want a detail.json (print-feature-schema --format detail)"
	tests := []struct {
		cmd, file string
		want      []string
	}{
		{"print-buildredist", filepath.Join(golden, "feature_1.0.0.json"), []string{"this is a feature file (feature_<version>.json)", wantDecl}},
		{"print-buildredist", filepath.Join(golden, "detail.json"), []string{"this is a detail.json", wantDecl}},
		{"print-buildredist", filepath.Join(golden, "index.json"), []string{"this is an index (index.json)", wantDecl}},
		{"print-buildredist", manifest, []string{"this is an NVIDIA manifest (redistrib_<version>.json)", wantDecl}},
		{"print-buildredist", notJSON, []string{":1:1: not valid JSON: invalid character 'h'", wantDecl}},
		{"print-buildredist", badDecl, []string{"not a buildRedist.json: at '/libx'", "got number, want null or array", wantDecl}},
		{"print-dependencies", filepath.Join(golden, "buildRedist.json"), []string{"this is a buildRedist.json", wantDetail}},
		{"print-dependencies", manifest, []string{"this is an NVIDIA manifest", wantDetail}},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCLI(tc.cmd, tc.file)
		if code != exitFail || stdout != "" {
			t.Errorf("%s %s: exit %d, stdout %q; want exit 1 and nothing on stdout", tc.cmd, tc.file, code, stdout)
		}
		for _, w := range append([]string{tc.file + ":"}, tc.want...) {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s %s: stderr lacks %q:\n%s", tc.cmd, tc.file, w, stderr)
			}
		}
	}
}

// TestPrintRightFormats: the files each command reads still work.
func TestPrintRightFormats(t *testing.T) {
	golden := filepath.Join("..", "..", "tests", "golden", "sample", "1.0.0")
	for _, args := range [][]string{{"print-buildredist", golden}, {"print-buildredist", "--json", filepath.Join(golden, "buildRedist.json")}, {"print-dependencies", golden}} {
		if code, stdout, stderr := runCLI(args...); code != exitOK || stdout == "" {
			t.Errorf("%v: exit %d, stderr %s", args, code, stderr)
		}
	}
}

// TestFiltersSelectingNothing: a version filter that selects no manifest
// is an error (exit 1) naming the filter, for each command that filters.
func TestFiltersSelectingNothing(t *testing.T) {
	srv := newRedistServer(t)
	code, stdout, stderr := runCLI("download-manifests", srv.URL+"/redist/", t.TempDir(), "--min-version", "9.0.0")
	if code != exitFail || stdout != "" || !strings.Contains(stderr, "none of the 6 manifests (1.0.0 to 5.0.0) listed at "+srv.URL+"/redist/ matches --min-version 9.0.0") {
		t.Errorf("download-manifests: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// The Nix commands stop before building anything: a stand-in static
	// ELF file is enough for the builders.
	program := filepath.Join(t.TempDir(), "program")
	if err := os.WriteFile(program, testelf.Build(testelf.Spec{}), 0o755); err != nil {
		t.Fatal(err)
	}
	nixLib := filepath.Join("..", "..", "nix")
	sample := filepath.Join("..", "..", "sample")
	code, _, stderr = runCLI("process-manifests", "file:///nowhere", sample, "--max-version", "0.1.0", "--detector-program", program, "--aggregate-program", program, "--nix-lib", nixLib)
	if code != exitFail || !strings.Contains(stderr, "none of the 2 redistrib_<version>.json in "+sample+" matches --max-version 0.1.0") {
		t.Errorf("process-manifests: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("check-nixpkgs", t.TempDir(), sample, "--url", "file:///nowhere", "--version", "7.7.7", "--detector-program", program, "--aggregate-program", program, "--nix-lib", nixLib)
	if code != exitFail || !strings.Contains(stderr, "none of the 2 redistrib_<version>.json in "+sample+" matches --version 7.7.7") {
		t.Errorf("check-nixpkgs: exit %d, stderr %q", code, stderr)
	}
}

// TestNoManifestMessages: a directory without manifests is said apart
// from one whose subdirectories hold them (with those to pass), and from
// a filter that selects none; no text reads "matches no version filter".
// The missing packages directory is said as such, before the Nix
// library or the builders are looked at (argument errors first).
func TestNoManifestMessages(t *testing.T) {
	empty := t.TempDir()
	parent := t.TempDir()
	if err := os.MkdirAll(filepath.Join(parent, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "cuda", "redistrib_12.8.0.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// No builders, no --nix-lib: a missing library or missing builders
	// must not hide these.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"process-manifests", "file:///nowhere", empty}, exitFail, "no redistrib_<version>.json in " + empty + ": pass the directory holding NVIDIA's manifests"},
		{[]string{"process-manifests", "file:///nowhere", parent}, exitFail, "no redistrib_<version>.json in " + parent + ", but its subdirectories hold some: pass the manifest directory itself (" + filepath.Join(parent, "cuda") + ")"},
		{[]string{"check-nixpkgs", t.TempDir(), parent, "--url", "file:///nowhere"}, exitFail, "but its subdirectories hold some"},
		{[]string{"check-nixpkgs", filepath.Join(empty, "nope"), parent}, exitUsage, "PACKAGES_DIR " + filepath.Join(empty, "nope") + ": no such directory"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "matches no version filter") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestJSONOutputsMatchSchemas: --json of print-buildredist and
// print-dependencies on the sample is what print-feature-schema describes.
func TestJSONOutputsMatchSchemas(t *testing.T) {
	golden, _ := filepath.Glob(filepath.Join("..", "..", "tests", "golden", "sample", "*.*.*"))
	if len(golden) < 2 {
		t.Fatalf("sample golden directories: %v", golden)
	}
	for cmd, format := range map[string]string{"print-buildredist": "buildredist", "print-dependencies": "dependencies"} {
		s := compileSchema(t, "print-feature-schema", "--format", format)
		for _, dir := range golden {
			code, stdout, stderr := runCLI(cmd, "--json", dir)
			if code != exitOK {
				t.Fatalf("%s --json %s: exit %d: %s", cmd, dir, code, stderr)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("%s --json %s: %v", cmd, dir, err)
			}
		}
	}
}

// TestBuildersRequired: the CLI builds none of the pipeline's
// derivations itself. Without the detector and the aggregate builder
// beside it (the test binary has none) or given by flag, the Nix commands
// refuse to run, naming the missing builder and the one command that
// installs all three programs; a builder given by flag must be a static
// executable; the old names of the flags are gone.
func TestBuildersRequired(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "not-elf")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	static := filepath.Join(dir, "static")
	if err := os.WriteFile(static, testelf.Build(testelf.Spec{}), 0o755); err != nil {
		t.Fatal(err)
	}
	nixLib := filepath.Join("..", "..", "nix")
	sample := filepath.Join("..", "..", "sample")
	process := func(args ...string) (int, string) {
		code, _, stderr := runCLI(append([]string{"process-manifests", "file:///nowhere", sample, "--nix-lib", nixLib}, args...)...)
		return code, stderr
	}
	install := "go install -trimpath -buildvcs=false -ldflags='-s -w -buildid=' github.com/nix-cuda/cuda-redist-find-features/cmd/...@latest"
	for _, c := range []struct {
		args       []string
		code       int
		wantStderr []string
	}{
		{nil, exitFail, []string{"cuda-redist-detector is not installed beside", "--detector-program", "CGO_ENABLED=0 " + install, "go install -trimpath -buildvcs=false -ldflags='-s -w -buildid=' ./cmd/..."}},
		{[]string{"--detector-program", static}, exitFail, []string{"cuda-redist-aggregate is not installed beside", "--aggregate-program", install}},
		{[]string{"--detector-program", notELF, "--aggregate-program", static}, exitFail, []string{"program " + notELF}},
		{[]string{"--detector-program", static, "--aggregate-program", notELF}, exitFail, []string{"program " + notELF}},
		{[]string{"--program", static}, exitUsage, []string{"unknown flag: --program"}},
		{[]string{"--detector", static}, exitUsage, []string{"unknown flag: --detector"}},
	} {
		code, stderr := process(c.args...)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d; stderr %q", c.args, code, c.code, stderr)
		}
		for _, want := range c.wantStderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%q: stderr %q, want %q in it", c.args, stderr, want)
			}
		}
	}
}
