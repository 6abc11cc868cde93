package nixpipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// Package files written for these tests in the shapes of Nixpkgs'
// (pkgs/development/cuda-modules/packages), not copies of them: a fixed
// set of named arguments, no `...`; buildRedist of a set and of
// finalAttrs; outputs from lib.optionals on backendStdenv.hostNixSystem
// and from optionals (via `inherit (lib.lists) optionals`) on
// finalAttrs.version; a conditional pname; lib.getLib / lib.getOutput in
// the inputs; _cuda's licenses and _mkMissingPackagesAssertions; flags;
// brokenAssertions and platformAssertions; package arguments the stand-in
// knows nothing about (zlib, patchelf, fetchpatch, setupCudaHook). The
// pnames and outputs are those of the fake release (cudarelease_test.go).
var realShapes = readShapes("testdata/shapes")

// readShapes reads the package files of a directory, by name. A test
// binary without them cannot run any of these tests: it stops at once.
func readShapes(dir string) map[string]string {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		panic(fmt.Sprintf("the test shapes in %s: %v", dir, err))
	}
	shapes := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			panic(fmt.Sprintf("the test shapes: %v", err))
		}
		shapes[e.Name()] = string(data)
	}
	return shapes
}

// Not package files: check-nixpkgs leaves them alone.
var notPackageFiles = map[string]string{
	"backendStdenv.nix": `{ stdenv }: stdenv // { forCuda = true; }
`,
	"README.md": "buildRedist packages live here\n",
}

// cudaTree writes the fake cuda and cudnn releases: manifests in
// <dir>/manifests/{cuda,cudnn}, archives in <dir>/archives.
func cudaTree(t *testing.T) (manifests, archives string) {
	t.Helper()
	dir := t.TempDir()
	manifests, archives = filepath.Join(dir, "manifests"), filepath.Join(dir, "archives")
	writeRelease(t, filepath.Join(manifests, "cuda"), archives, "12.8.0", cudaArchives())
	writeRelease(t, filepath.Join(manifests, "cudnn"), archives, "9.8.0", cudnnArchives())
	return manifests, archives
}

func runCheck(t *testing.T, archives string, args ...string) (int, []string, string) {
	t.Helper()
	all := append([]string{"check-nixpkgs", "--nix-option", "substituters=",
		"--url", "cuda=file://" + archives, "--url", "cudnn=file://" + archives}, args...)
	code, stdout, stderr := runProgram(t, all...)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return code, lines, stderr
}

func withFiles(base map[string]string, changes map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range notPackageFiles {
		out[k] = v
	}
	for k, v := range changes {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// The files in the real shapes, matching the archives: every file
// evaluates, nothing fails, exit 0.
func TestCheckRealShapesClean(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	pkgs := packagesDir(t, withFiles(realShapes, nil))
	code, lines, stderr := runCheck(t, archives, "--hints=false", pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	if code != 0 || len(lines) != 0 {
		t.Fatalf("exit %d, lines:\n%s\nstderr:\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	// With hints: only what could be split off, and the header-only
	// package's single output; nothing about dependencies.
	code, lines, stderr = runCheck(t, archives, pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "HINT ") || strings.Contains(l, "Dependency") || strings.Contains(l, "buildInput") {
			t.Errorf("unexpected line: %s", l)
		}
	}
	if !contains(lines, "HINT  cuda_cccl linux-sbsa None 12.8.0: declared [out] needed [out include]: output include could be declared (include/cuda/std/version)") {
		t.Errorf("no include hint for cuda_cccl in:\n%s", strings.Join(lines, "\n"))
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// Seeded errors: each is found, a broken file is reported alone (once,
// with Nix's message), and every other file is still checked.
func TestCheckRealShapesDrift(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	files := withFiles(realShapes, map[string]string{
		// static everywhere, though linux-sbsa has no static archive.
		"cuda_cupti.nix": strings.Replace(realShapes["cuda_cupti.nix"],
			`++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ]`, `++ [ "static" ]`, 1),
		// stubs not declared: lib/stubs lands in lib, without the hook.
		"libcublas.nix": strings.Replace(realShapes["libcublas.nix"], `    "static"
    "stubs"
`, `    "static"
`, 1),
		// bin/nvcc mentions /usr/.
		"cuda_nvcc.nix": strings.Replace(realShapes["cuda_nvcc.nix"], "allowFHSReferences = true;", "", 1),
		// libcusolver.so.11 needs libcusparse.so.12.
		"libcusolver.nix": strings.Replace(realShapes["libcusolver.nix"], "    (lib.getLib libcusparse)\n", "", 1),
		// A buildInput that provides nothing cudnn needs.
		"cudnn.nix": strings.Replace(realShapes["cudnn.nix"], "      zlib\n", "      zlib\n      cuda_cupti\n", 1),
		// Missing attribute: only this file's error.
		"cuda_nvml_dev.nix": strings.Replace(realShapes["cuda_nvml_dev.nix"], "includeRemoveStubsFromRunpathHook = true;",
			"includeRemoveStubsFromRunpathHook = backendStdenv.hostCudaSystem == null;", 1),
		// Fails on linux-sbsa only: linux-x86_64 is still checked.
		"cccl.nix": strings.Replace(realShapes["cccl.nix"], `outputs = [ "out" ];`,
			`outputs = [ "out" ] ++ (if backendStdenv.hostRedistSystem == "linux-sbsa" then throw "cccl: no sbsa yet" else [ ]);`, 1),
		// A syntax error.
		"libbroken.nix": "{ buildRedist }: buildRedist { redistName = \"cuda\"; pname = ",
		// No file for libnvjitlink.
		"libnvjitlink.nix": "",
	})
	files["cuda_nvml_dev.nix"] = strings.Replace(files["cuda_nvml_dev.nix"], "  buildRedist,\n", "  backendStdenv,\n  buildRedist,\n", 1)
	files["cccl.nix"] = strings.Replace(files["cccl.nix"], "  buildRedist,\n", "  backendStdenv,\n  buildRedist,\n", 1)
	pkgs := packagesDir(t, files)
	code, lines, stderr := runCheck(t, archives, pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	errs := linesWithPrefix(lines, "ERROR")
	want := []string{
		`ERROR cccl.nix: does not evaluate: error: cccl: no sbsa yet (for cuda 12.8.0 on linux-sbsa with CUDA 12.8)`,
		`ERROR cuda_nvml_dev.nix: does not evaluate: error: attribute 'hostCudaSystem' missing at cuda_nvml_dev.nix:19:39`,
		fmt.Sprintf(`ERROR libbroken.nix: does not evaluate: error: syntax error, unexpected end of file at libbroken.nix:1:%d`, testenv.NixEOFColumn(t, 60)),
		`ERROR cuda_cupti linux-sbsa None 12.8.0: declared [out dev include lib samples static] needed [out samples include lib]: declared output static ends up empty: nothing matches **/*.a`,
		`ERROR cuda_nvcc linux-sbsa None 12.8.0: declared [out] needed [out bin include]: a file contains /usr/ and allowFHSReferences is not set (bin/nvcc)`,
		`ERROR cuda_nvcc linux-x86_64 None 12.8.0: declared [out] needed [out bin include]: a file contains /usr/ and allowFHSReferences is not set (bin/nvcc)`,
		`ERROR libcublas linux-sbsa None 12.8.0: declared [out dev include lib static] needed [out include lib static stubs]: output lib has a stubs directory but includeRemoveStubsFromRunpathHook is false (lib/stubs)`,
		`ERROR libcublas linux-x86_64 None 12.8.0: declared [out dev include lib static] needed [out include lib static stubs]: output lib has a stubs directory but includeRemoveStubsFromRunpathHook is false (lib/stubs)`,
		`ERROR libcusolver linux-sbsa None 12.8.0: needs libcusparse.so.12 (from libcusparse), which no buildInput provides: autoPatchelfHook would fail [libcusolver.nix]`,
		`ERROR libcusolver linux-x86_64 None 12.8.0: needs libcusparse.so.12 (from libcusparse), which no buildInput provides: autoPatchelfHook would fail [libcusolver.nix]`,
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s\nall lines:\n%s", diff, strings.Join(lines, "\n"))
	}
	for _, hint := range []string{
		`HINT  cudnn linux-x86_64 cuda12 9.8.0: buildInput cuda_cupti provides none of the libraries the archive needs [cudnn.nix]`,
		`HINT  libnvjitlink linux-x86_64 None 12.8.0: declared [] needed [out include lib static stubs]: no package file in ` + pkgs + ` has this pname (unless it is one of those that do not evaluate: cuda_nvml_dev.nix, libbroken.nix)`,
	} {
		if !contains(lines, hint) {
			t.Errorf("missing %q in:\n%s", hint, strings.Join(lines, "\n"))
		}
	}
	// The files that evaluate are all checked: the x86_64 case of cccl.nix too.
	if !contains(lines, "HINT  cuda_cccl linux-x86_64 None 12.8.0: declared [out] needed [out include]: output include could be declared (include/cuda/std/version)") {
		t.Errorf("cccl.nix's linux-x86_64 case was not checked:\n%s", strings.Join(lines, "\n"))
	}

	checkDriftJSON(t, archives, pkgs, manifests, len(lines))
}

// linesWithPrefix are the lines that start with prefix.
func linesWithPrefix(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// checkDriftJSON runs the drift check again with --json: one finding
// per line of the text run (textLines), each what print-feature-schema
// --format finding describes, then the summary; libcusolver's missing
// dependency has the fields.
func checkDriftJSON(t *testing.T, archives, pkgs, manifests string, textLines int) {
	t.Helper()
	code, jsonLines, _ := runCheck(t, archives, "--json", pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	if code != 1 || len(jsonLines) != textLines+1 || !strings.HasPrefix(jsonLines[len(jsonLines)-1], `{"summary":{"files":`) {
		t.Fatalf("--json: exit %d, %d lines, want 1 and %d and a summary last", code, len(jsonLines), textLines+1)
	}
	jsonLines = jsonLines[:len(jsonLines)-1]
	found := false
	for _, l := range jsonLines {
		f := schemaFinding(t, l)
		if f.Kind == "missingDependency" && f.Package == "libcusolver" && f.Platform == "linux-x86_64" {
			found = f.Level == "error" && f.File == "libcusolver.nix" && f.Version == "12.8.0" && f.Variant == "None" &&
				strings.Contains(f.Message, "libcusparse.so.12")
		}
	}
	if !found {
		t.Errorf("no missingDependency object for libcusolver in:\n%s", strings.Join(jsonLines, "\n"))
	}
}

// jsonFinding is the fields of a --json finding the tests read.
type jsonFinding struct {
	Level, Kind, Package, Platform, Variant, Version, Message, File string
	Declared, Needed                                                []string
}

// schemaFinding decodes the JSON line l, which must be what
// print-feature-schema --format finding describes.
func schemaFinding(t *testing.T, l string) jsonFinding {
	t.Helper()
	var f jsonFinding
	if err := json.Unmarshal([]byte(l), &f); err != nil {
		t.Fatalf("%s: %v", l, err)
	}
	if v, err := jsonschema.UnmarshalJSON(strings.NewReader(l)); err != nil {
		t.Fatalf("%s: %v", l, err)
	} else if err := schema.Validate("finding", v); err != nil {
		t.Errorf("%s: %v", l, err)
	}
	return f
}

// A fetch failure is reported apart from drift, with exit code 3.
func TestCheckFetchFailure(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	// A hash nothing in the store has: the fetch runs, and fails.
	rewriteManifest(t, filepath.Join(manifests, "cuda", "redistrib_12.8.0.json"), func(m map[string]any) {
		leaf := m["cuda_cccl"].(map[string]any)["linux-sbsa"].(map[string]any)
		leaf["sha256"] = strings.Repeat("0", 63) + "1"
	})
	pkgs := packagesDir(t, withFiles(realShapes, nil))
	code, lines, stderr := runCheck(t, archives, "--hints=false", pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	// The cause is the fetch's own: curl's "read a file:// file (37)"
	// (the fetcher may not read the test's directory), worded
	// "Couldn't read" by Nix 2.8's curl, "Could not read ... Couldn't
	// open file PATH" by 2.26's and later.
	want := "FAILED cuda_cccl linux-sbsa None 12.8.0: the archive could not be checked: fetch failed: error: unable to download 'file://" +
		filepath.Join(archives, "cuda_cccl", "linux-sbsa", "cuda_cccl-linux-sbsa-12.8.55-archive.tar.xz") + "': "
	if code != 3 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], " read a file:// file (37)") {
		t.Fatalf("exit %d (want 3), lines (want one: %s...read a file:// file (37)...):\n%s\nstderr:\n%s", code, want, strings.Join(lines, "\n"), stderr)
	}
}
