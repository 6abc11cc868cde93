package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A detail.json as an aggregate writes it, cut down to the libraries: the
// targets are those cuobjdump lists for CUDA 13's libcublasLt (sm_120f)
// and a cuDNN-like library with architecture-specific cubins.
const coverageDetail = `{
  "libcublas": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {"libraries": [
    {"path": "lib/libcublasLt.so.13", "kind": "shared", "sassArchitectures": ["sm_75", "sm_80", "sm_90", "sm_100", "sm_120f"], "ptxArchitectures": ["sm_120"]},
    {"path": "lib/libcublas.so.13", "kind": "shared", "sassArchitectures": ["sm_75", "sm_80", "sm_90", "sm_100", "sm_120"], "ptxArchitectures": []},
    {"path": "lib/stubs/libcublas.so", "kind": "shared", "stub": true, "sassArchitectures": [], "ptxArchitectures": []}]}}}},
  "libspecific": {"linux-sbsa": {"cuda13": {"sha256": "", "relativePath": "", "features": {"libraries": [
    {"path": "lib/libspecific.so.1", "kind": "shared", "sassArchitectures": ["sm_90a", "sm_100a"], "ptxArchitectures": []}]}}}},
  "cuda_cudart": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {"libraries": [
    {"path": "lib/libcudart.so.13", "kind": "shared", "sassArchitectures": [], "ptxArchitectures": []}]}}}}
}
`

func writeCoverageDetail(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(coverageDetail), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCoverageText(t *testing.T) {
	dir := writeCoverageDetail(t)
	code, stdout, stderr := runCLI("coverage", "--cuda-capabilities", "8.9,9.0a,10.3,12.1f,13.0", dir)
	want := `PACKAGE      PLATFORM      VARIANT  LIBRARY                8.9   9.0a  10.3  12.1f  13.0
libcublas    linux-x86_64  None     (package)              sass  sass  sass  sass   none
                                    lib/libcublas.so.13    sass  sass  sass  sass   none
                                    lib/libcublasLt.so.13  sass  sass  sass  sass   ptx
libspecific  linux-sbsa    cuda13   (package)              none  sass  none  none   none
                                    lib/libspecific.so.1   none  sass  none  none   none

1 archive(s) without device code (not shown; --json lists them).
5 library/capability pair(s) get nothing:
  libcublas linux-x86_64 None lib/libcublas.so.13: 13.0 (SASS sm_75 sm_80 sm_90 sm_100 sm_120; PTX none)
  libspecific linux-sbsa cuda13 lib/libspecific.so.1: 8.9 (SASS sm_90a sm_100a; PTX none)
  libspecific linux-sbsa cuda13 lib/libspecific.so.1: 10.3 (SASS sm_90a sm_100a; PTX none)
  libspecific linux-sbsa cuda13 lib/libspecific.so.1: 12.1f (SASS sm_90a sm_100a; PTX none)
  libspecific linux-sbsa cuda13 lib/libspecific.so.1: 13.0 (SASS sm_90a sm_100a; PTX none)
`
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %s, table (-want +got):\n%s", code, stderr, cmp.Diff(want, stdout))
	}
}

// TestCoverageJSON: the package gets the worst of its libraries (none on
// 13.0 although libcublasLt can JIT), an a cubin runs on its own GPU
// whatever the entry's suffix, and each library names the targets that
// serve it.
// coverageJSON is the part of coverage --json the tests read.
type coverageJSON struct {
	Capabilities []string `json:"capabilities"`
	Archives     []struct {
		Package   string            `json:"package"`
		Coverage  map[string]string `json:"coverage"`
		Libraries []struct {
			Path     string `json:"path"`
			Coverage map[string]struct {
				Support string   `json:"support"`
				Targets []string `json:"targets"`
			} `json:"coverage"`
		} `json:"libraries"`
	} `json:"archives"`
	None []map[string]any `json:"none"`
}

func TestCoverageJSON(t *testing.T) {
	dir := writeCoverageDetail(t)
	code, stdout, stderr := runCLI("coverage", "--json", "--cuda-capabilities", "9.0,13.0", filepath.Join(dir, "detail.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got coverageJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if diff := cmp.Diff([]string{"9.0", "13.0"}, got.Capabilities); diff != "" {
		t.Errorf("capabilities: %s", diff)
	}
	checkCoverageArchives(t, got)
	lt := got.Archives[1].Libraries[1]
	if lt.Path != "lib/libcublasLt.so.13" || lt.Coverage["13.0"].Support != "ptx" || !cmp.Equal(lt.Coverage["13.0"].Targets, []string{"sm_120"}) {
		t.Errorf("libcublasLt: %+v", lt)
	}
	if len(got.None) != 2 || got.None[0]["library"] != "lib/libcublas.so.13" || got.None[0]["capability"] != "13.0" {
		t.Errorf("none: %v", got.None)
	}
}

func checkCoverageArchives(t *testing.T, got coverageJSON) {
	t.Helper()
	var rows []string
	for _, a := range got.Archives {
		rows = append(rows, a.Package+" "+a.Coverage["9.0"]+" "+a.Coverage["13.0"])
	}
	if diff := cmp.Diff([]string{"cuda_cudart noDeviceCode noDeviceCode", "libcublas sass none", "libspecific sass none"}, rows); diff != "" {
		t.Fatalf("archives (-want +got):\n%s", diff)
	}
}

func TestCoverageRequire(t *testing.T) {
	dir := writeCoverageDetail(t)
	code, stdout, stderr := runCLI("coverage", "--require-capabilities", "--cuda-capabilities", "8.9,9.0a", dir)
	if code != exitFail || !strings.Contains(stderr, "--require-capabilities: 1 library/capability pair(s) get no SASS and no PTX") ||
		!strings.Contains(stdout, "libspecific") {
		t.Errorf("a gap required away: exit %d, stderr %s", code, stderr)
	}
	for _, caps := range []string{"9.0,10.0", "9.0a,10.0a,10.0f"} {
		if code, _, stderr := runCLI("coverage", "--require-capabilities", "--cuda-capabilities", caps, dir); code != 0 {
			t.Errorf("%s: every library has a cubin for 9.0 and 10.0 GPUs: exit %d, %s", caps, code, stderr)
		}
	}
}

func TestCoverageUsage(t *testing.T) {
	dir := writeCoverageDetail(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"coverage", dir}, "coverage needs --cuda-capabilities"},
		{[]string{"coverage", "--cuda-capabilities", "sm_90", dir}, `--cuda-capabilities: CUDA capability "sm_90"`},
		{[]string{"coverage", "--cuda-capabilities", "9.0"}, "coverage takes one FILE or DIR; none given"},
	} {
		if code, _, stderr := runCLI(tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %s; want usage error with %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI("coverage", "--cuda-capabilities", "9.0", filepath.Join(dir, "nope.json")); code != exitFail || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

func TestCheckNixpkgsCapabilityUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check-nixpkgs", "--require-capabilities", dir, dir}, "--require-capabilities needs --cuda-capabilities"},
		{[]string{"check-nixpkgs", "--cuda-capabilities", "9.0,9.0", dir, dir}, "--cuda-capabilities: CUDA capabilities \"9.0,9.0\": 9.0 given twice"},
	} {
		if code, _, stderr := runCLI(tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %s; want usage error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestCoverageMatchesSchemas: coverage --json on the sample's aggregates
// (detect's own results) is what print-feature-schema --format
// coverage describes, and report --cuda-capabilities writes a report.json
// valid against the report schema, with the capability tables in its
// report.html.
func TestCoverageMatchesSchemas(t *testing.T) {
	sample := filepath.Join("..", "..", "tests", "golden", "sample")
	s := compileSchema(t, "print-feature-schema", "--format", "coverage")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		out := filepath.Join(t.TempDir(), "coverage.json")
		if code, _, stderr := runCLI("coverage", "--json", "--cuda-capabilities", "7.5,9.0a,10.0f", "--out", out, filepath.Join(sample, v)); code != exitOK {
			t.Fatalf("coverage %s: exit %d: %s", v, code, stderr)
		}
		if err := validateFile(t, s, out); err != nil {
			t.Errorf("coverage --json %s against its schema: %v", v, err)
		}
	}
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := runCLI("report", "--cuda-capabilities", "7.5,9.0a", "--out", out, filepath.Join(sample, "1.0.0"), filepath.Join(sample, "2.0.0")); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	if err := validateFile(t, compileSchema(t, "print-feature-schema", "--format", "report"), filepath.Join(out, "report.json")); err != nil {
		t.Errorf("report.json with coverage against its schema: %v", err)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), `<td id="cap/2.0.0/linux-x86_64/libdemo_variant/cuda11/9.0a" class="none"`) {
		t.Errorf("report.html lacks libdemo_variant cuda11's none for 9.0a (%v)", err)
	}
	if code, _, stderr := runCLI("report", "--cuda-capabilities", "9", "--out", out, filepath.Join(sample, "1.0.0")); code != exitUsage || !strings.Contains(stderr, `CUDA capability "9"`) {
		t.Errorf("report --cuda-capabilities 9: exit %d, %s", code, stderr)
	}
}

func TestCoverageSchemaCanFail(t *testing.T) {
	s := compileSchema(t, "print-feature-schema", "--format", "coverage")
	for _, doc := range []string{
		`{"capabilities": ["9.0"], "archives": [], "none": [{"package": "p", "platform": "x", "variant": "None", "library": "l", "capability": "sm_90", "sass": [], "ptx": []}]}`,
		`{"capabilities": ["9.0"], "archives": [{"package": "p", "platform": "x", "variant": "None", "coverage": {"9.0": "maybe"}, "libraries": []}], "none": []}`,
		`{"capabilities": [], "archives": [], "none": []}`,
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("the coverage schema accepted %s", doc)
		}
	}
}
