package nixpipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// examplePackages copies examples/nixpkgs into a temporary directory,
// less the files named in without.
func examplePackages(t *testing.T, without ...string) string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(repoRoot(), "examples", "nixpkgs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "nixpkgs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	for _, w := range without {
		delete(files, w)
	}
	return packagesDir(t, files)
}

// readDir reads every file of a directory.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// The example files less the broken one: --fix repairs two files and
// writes the missing one; the diff it prints is what it writes (patch
// agrees), every file parses, the check that follows is clean, and a
// second --fix changes nothing.
func TestCheckNixpkgsFix(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	pkgs := examplePackages(t, "libdemo_variant.nix")
	before := readDir(t, pkgs)

	code, dry, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--dry-run", "--hints=false")
	if code != 0 {
		t.Fatalf("--fix --dry-run: exit %d\n%s\n%s", code, strings.Join(dry, "\n"), stderr)
	}
	if diff := cmp.Diff(before, readDir(t, pkgs)); diff != "" {
		t.Fatalf("--dry-run wrote (-before +after):\n%s", diff)
	}
	for _, want := range []string{"+++ b/cuda_demo_rt.nix", "+++ b/demo_samples.nix", "--- /dev/null", "+++ b/libdemo_variant.nix",
		`+  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];`, "+  allowFHSReferences = true;", `+  pname = "libdemo_variant";`} {
		if !contains(dry, want) {
			t.Errorf("no line %q in the diff:\n%s", want, strings.Join(dry, "\n"))
		}
	}

	code, fixed, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--hints=false")
	if code != 0 || strings.Join(fixed, "\n") != strings.Join(dry, "\n") {
		t.Fatalf("--fix: exit %d, output differs from --dry-run's:\n%s\n%s", code, strings.Join(fixed, "\n"), stderr)
	}
	after := readDir(t, pkgs)
	checkParseAndPatch(t, pkgs, before, after, dry)

	if code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--hints=false"); code != 0 || len(lines) != 0 {
		t.Fatalf("check after --fix: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	if code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--hints=false"); code != 0 || len(lines) != 0 {
		t.Fatalf("second --fix: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	if diff := cmp.Diff(after, readDir(t, pkgs)); diff != "" {
		t.Errorf("the second --fix changed files:\n%s", diff)
	}
}

// checkParseAndPatch: every file --fix left in pkgs (after) parses, and
// patch(1) turns the files before into them with the diff it printed.
func checkParseAndPatch(t *testing.T, pkgs string, before, after map[string]string, diffLines []string) {
	t.Helper()
	for name, text := range after {
		if out, err := exec.Command("nix-instantiate", "--parse", filepath.Join(pkgs, name)).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v %s\n%s", name, err, out, text)
		}
	}
	patched := packagesDir(t, before)
	cmd := exec.Command("patch", "-p1")
	cmd.Dir, cmd.Stdin = patched, strings.NewReader(strings.Join(diffLines, "\n")+"\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v %s", err, out)
	}
	if diff := cmp.Diff(after, readDir(t, patched)); diff != "" {
		t.Errorf("written files and the patched ones differ (-written +patched):\n%s", diff)
	}
}

// A file the fixer cannot edit safely is left alone, with an ERROR
// saying why; the others are still fixed.
func TestCheckNixpkgsFixRefuses(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	files := map[string]string{}
	for k, v := range goodPackages {
		files[k] = v
	}
	files["cuda_demo_rt.nix"] = `{ buildRedist, backendStdenv }:
buildRedist {
  redistName = "sample";
  pname = "cuda_demo_rt";
  # static on every platform, though sbsa has none
  outputs = if backendStdenv.hostRedistSystem != "" then [ "out" "include" "lib" "static" "stubs" ] else [ "out" ];
}
`
	files["cuda_demo_tools.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" "doc" ]; }
`
	pkgs := packagesDir(t, files)
	// --dry-run exits as the check after the fix would: errors remain.
	if code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--dry-run", "--hints=false"); code != 1 {
		t.Fatalf("--dry-run: exit %d, want 1\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--fix", "--hints=false")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	want := []string{
		"--- a/cuda_demo_tools.nix",
		"+++ b/cuda_demo_tools.nix",
		"@@ -1 +1 @@",
		`-{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" "doc" ]; }`,
		`+{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" ]; }`,
		`ERROR cuda_demo_rt.nix: not fixed (the file is left alone): outputs is computed in a way the fixer does not follow (if backendStdenv.hostRedistSystem != "" then [ "out" "include" "lib" "static" "stubs" ] else [ "out" ])`,
		"ERROR cuda_demo_rt linux-sbsa None 1.0.0: declared [out include lib static stubs] needed [out include lib stubs]: declared output static ends up empty: nothing matches **/*.a",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("--fix output (-want +got):\n%s", diff)
	}
	if got := readDir(t, pkgs)["cuda_demo_rt.nix"]; got != files["cuda_demo_rt.nix"] {
		t.Errorf("the refused file changed:\n%s", got)
	}
}

// Never a silent pass: a manifest directory no package file names fails;
// a package file no manifest covers is a warning saying it was not checked
// (a failure with --strict); --redist names a directory.
func TestCheckNixpkgsCoverage(t *testing.T) {
	requireNix(t)
	other := filepath.Join(t.TempDir(), "other")
	if err := os.Rename(copySample(t), other); err != nil {
		t.Fatal(err)
	}
	pkgs := packagesDir(t, goodPackages)
	run := func(args ...string) (int, []string, string) {
		all := append([]string{"check-nixpkgs", "--nix-option", "substituters=", "--url", "file://" + other, "--hints=false"}, args...)
		code, stdout, stderr := runProgram(t, all...)
		return code, strings.Fields(strings.TrimSpace(stdout)), stderr + stdout
	}
	code, _, out := run(pkgs, other)
	if code != 1 || !strings.Contains(out, "ERROR "+other+`: no package file in `+pkgs+` has redistName "other"`) {
		t.Errorf("a directory no file names: exit %d\n%s", code, out)
	}
	if code, _, out := run("--redist", "sample="+other, pkgs); code != 0 {
		t.Errorf("--redist sample=DIR: exit %d\n%s", code, out)
	}

	files := map[string]string{"nvpl_blas.nix": `{ buildRedist }: buildRedist { redistName = "nvpl"; pname = "nvpl_blas"; outputs = [ "out" ]; }
`}
	for k, v := range goodPackages {
		files[k] = v
	}
	// A file no manifest covers is not checked: a warning, not a failure,
	// while other files were checked; with --strict, a failure.
	code, _, out = run("--redist", "sample="+other, packagesDir(t, files))
	if code != 0 || !strings.Contains(out, "WARN  redist nvpl: 1 package file(s) not checked: no manifest of this redist was given") {
		t.Errorf("a file no manifest covers: exit %d\n%s", code, out)
	}
	if code, _, out = run("--strict", "--redist", "sample="+other, packagesDir(t, files)); code != 1 || !strings.Contains(out, "--strict: 1 package file(s) not checked") {
		t.Errorf("--strict, a file no manifest covers: exit %d\n%s", code, out)
	}

	// An output buildRedist drops: a warning (droppedOutput) even with
	// --hints=false, and no error.
	files = map[string]string{}
	for k, v := range goodPackages {
		files[k] = v
	}
	files["cuda_demo_tools.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" "man" ]; }
`
	code, _, out = run("--redist", "sample="+other, packagesDir(t, files))
	if code != 0 || !strings.Contains(out, `cuda_demo_tools.nix: declares output "man", which buildRedist drops`) {
		t.Errorf("a dropped output: exit %d\n%s", code, out)
	}
}

// The files in the real shapes, drifted in ways --fix repairs: an
// unconditional "++ [ "static" ]" (sbsa has none), stubs undeclared,
// allowFHSReferences gone, an output no archive fills in the let ... in
// form of cudnn. After --fix the check is clean and every file parses.
func TestCheckRealShapesFix(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	files := withFiles(realShapes, map[string]string{
		"cuda_cupti.nix": strings.Replace(realShapes["cuda_cupti.nix"],
			`++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ]`, `++ [ "static" ]`, 1),
		"libcublas.nix": strings.Replace(realShapes["libcublas.nix"], "    \"static\"\n    \"stubs\"\n", "    \"static\"\n", 1),
		"cuda_nvcc.nix": strings.Replace(realShapes["cuda_nvcc.nix"], "  allowFHSReferences = true;\n\n", "", 1),
		"cudnn.nix":     strings.Replace(realShapes["cudnn.nix"], "      \"out\"\n      \"dev\"\n", "      \"out\"\n      \"bin\"\n      \"dev\"\n", 1),
	})
	pkgs := packagesDir(t, files)
	dirs := []string{filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn")}
	code, lines, stderr := runCheck(t, archives, append([]string{"--fix", "--hints=false", pkgs}, dirs...)...)
	if code != 0 {
		t.Fatalf("--fix: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	t.Logf("--fix:\n%s", strings.Join(lines, "\n"))
	for _, want := range []string{
		"+++ b/cuda_cupti.nix",
		`-  ++ [ "static" ];`,
		`+  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];`,
		"+++ b/libcublas.nix",
		`+    "stubs"`,
		"+++ b/cuda_nvcc.nix",
		"+  allowFHSReferences = true;",
		"+++ b/cudnn.nix",
		`-      "bin"`,
	} {
		if !contains(lines, want) {
			t.Errorf("no line %q in the diff:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	for name := range files {
		if !strings.HasSuffix(name, ".nix") {
			continue
		}
		if out, err := exec.Command("nix-instantiate", "--parse", filepath.Join(pkgs, name)).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v %s", name, err, out)
		}
	}
	// Only the drifted files changed; the others are byte for byte.
	after := readDir(t, pkgs)
	for _, name := range []string{"cuda_cudart.nix", "libnvjitlink.nix", "libcusparse.nix", "libcusolver.nix", "cccl.nix", "cuda_nvml_dev.nix", "backendStdenv.nix", "README.md"} {
		if after[name] != files[name] {
			t.Errorf("%s changed:\n%s", name, after[name])
		}
	}
	if code, lines, stderr := runCheck(t, archives, append([]string{"--hints=false", pkgs}, dirs...)...); code != 0 || len(lines) != 0 {
		t.Errorf("check after --fix: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
}
