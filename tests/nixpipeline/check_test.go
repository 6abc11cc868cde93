package nixpipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// packagesDir writes a Nixpkgs-style cuda-modules packages/ directory.
func packagesDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func checkNixpkgs(t *testing.T, pkgs, sample string, extra ...string) (int, []string, string) {
	t.Helper()
	args := append([]string{"check-nixpkgs", "--nix-option", "substituters=",
		"--url", "file://" + sample}, extra...)
	args = append(args, pkgs, sample)
	code, stdout, stderr := runProgram(t, args...)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return code, lines, stderr
}

// A packages/ directory that matches the sample: no errors, exit 0.
var goodPackages = map[string]string{
	"cuda_demo_rt.nix": `{ buildRedist, lib, backendStdenv }:
buildRedist (finalAttrs: {
  redistName = "sample";
  pname = "cuda_demo_rt";
  outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];
  meta.license = lib.licenses.unfree;
})
`,
	"cuda_demo_tools.nix": `{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" ]; }
`,
	"demo_samples.nix": `{ buildRedist }: buildRedist { redistName = "sample"; pname = "demo_samples"; outputs = [ "out" "samples" "python" "lib" ]; allowFHSReferences = true; }
`,
	// Their libraries need a libcudart no package of the sample provides.
	"libdemo_versioned.nix": `{ buildRedist }: buildRedist { redistName = "sample"; pname = "libdemo_versioned"; outputs = [ "out" "include" "lib" ]; autoPatchelfIgnoreMissingDeps = [ "libcudart.so.*" ]; }
`,
	"libdemo_variant.nix": `{ buildRedist }: buildRedist { redistName = "sample"; pname = "libdemo_variant"; outputs = [ "out" "include" "lib" "static" ]; autoPatchelfIgnoreMissingDeps = true; }
`,
	"demo_src.nix": `{ buildRedist }: buildRedist { redistName = "sample"; pname = "demo_src"; outputs = [ "out" "include" ]; }
`,
}

// sampleAsRedist copies the sample to a directory named after its redist,
// as check-nixpkgs takes the redist name from the directory's name.
func sampleAsRedist(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "sample")
	if err := os.Rename(copySample(t), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// sampleDropped are the HINTs of the four packages the sample's 2.0.0
// drops (lib/report/lineage): a check of the sample with their files
// prints them however clean the files are.
var sampleDropped = []string{
	"HINT  cuda_demo_rt 2.0.0: cuda_demo_rt is not in sample 2.0.0: its last release is 1.0.0 (version 1.0.42); the file builds for releases up to 1.0.0 only [cuda_demo_rt.nix]",
	"HINT  cuda_demo_tools 2.0.0: cuda_demo_tools is not in sample 2.0.0: its last release is 1.0.0 (version 1.0.7); the file builds for releases up to 1.0.0 only [cuda_demo_tools.nix]",
	"HINT  demo_samples 2.0.0: demo_samples is not in sample 2.0.0: its last release is 1.0.0 (version 1.0.0); the file builds for releases up to 1.0.0 only [demo_samples.nix]",
	"HINT  libdemo_versioned 2.0.0: libdemo_versioned is not in sample 2.0.0: its last release is 1.0.0 (version 2.3.0); the file builds for releases up to 1.0.0 only [libdemo_versioned.nix]",
}

// withoutDropped is lines without sampleDropped's, for the tests of
// other findings.
func withoutDropped(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !slices.Contains(sampleDropped, l) {
			out = append(out, l)
		}
	}
	return out
}

func TestCheckNixpkgsClean(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	code, lines, stderr := checkNixpkgs(t, packagesDir(t, goodPackages), sample)
	if code != 0 || !slices.Equal(lines, sampleDropped) {
		t.Fatalf("exit %d, lines:\n%s\nstderr:\n%s\nwant the dropped packages' hints alone", code, strings.Join(lines, "\n"), stderr)
	}
}

func TestCheckNixpkgsDrift(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	files := map[string]string{}
	for k, v := range goodPackages {
		files[k] = v
	}
	// static on every platform, though linux-sbsa has no static archive;
	// and the stubs hook turned off although there are stubs.
	files["cuda_demo_rt.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_rt";
  outputs = [ "out" "include" "lib" "static" "stubs" ]; includeRemoveStubsFromRunpathHook = false; }
`
	// The Makefile has /usr/local/cuda: allowFHSReferences is needed.
	files["demo_samples.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "demo_samples"; outputs = [ "out" "samples" "python" "lib" ]; }
`
	// Declares doc, which buildRedist never fills, and not bin's sibling.
	files["cuda_demo_tools.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "cuda_demo_tools"; outputs = [ "out" "bin" "doc" ]; }
`
	// Only out: a hint, never an error.
	files["libdemo_versioned.nix"] = `{ buildRedist }: buildRedist { redistName = "sample"; pname = "libdemo_versioned"; outputs = [ "out" ]; autoPatchelfIgnoreMissingDeps = [ "libcudart.so.*" ]; }
`
	// Uses an attribute backendStdenv does not have: that file's error alone.
	files["demo_src.nix"] = `{ buildRedist, backendStdenv }: buildRedist { redistName = "sample"; pname = "demo_src"; outputs = [ "out" ] ++ backendStdenv.noSuchAttribute; }
`
	code, lines, stderr := checkNixpkgs(t, packagesDir(t, files), sample)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	want := []string{
		"ERROR cuda_demo_rt linux-sbsa None 1.0.0: declared [out include lib static stubs] needed [out include lib stubs]: declared output static ends up empty: nothing matches **/*.a",
		"ERROR cuda_demo_rt linux-sbsa None 1.0.0: declared [out include lib static stubs] needed [out include lib stubs]: output stubs has a stubs directory but includeRemoveStubsFromRunpathHook is false (lib/stubs)",
		"ERROR cuda_demo_rt linux-x86_64 None 1.0.0: declared [out include lib static stubs] needed [out include lib static stubs]: output stubs has a stubs directory but includeRemoveStubsFromRunpathHook is false (lib/stubs)",
		"ERROR cuda_demo_tools linux-x86_64 None 1.0.0: declared [out bin doc] needed [out bin]: declared output doc ends up empty: buildRedist moves nothing into it",
		"ERROR demo_samples linux-x86_64 None 1.0.0: declared [out samples python lib] needed [out samples python lib]: a file contains /usr/ and allowFHSReferences is not set (samples/vectorAdd/Makefile)",
		"HINT  libdemo_versioned linux-x86_64 None 1.0.0: declared [out] needed [out include lib]: output include could be declared (include/demo_v.h)",
		"HINT  libdemo_versioned linux-x86_64 None 1.0.0: declared [out] needed [out include lib]: output lib could be declared (lib/libdemo_v.so)",
	}
	// demo_src.nix fails to evaluate: one error naming the file and
	// Nix's message, and no other finding about its package.
	want = append([]string{"ERROR demo_src.nix: does not evaluate: error: attribute 'noSuchAttribute' missing at demo_src.nix:1:113"}, want...)
	if diff := cmp.Diff(want, withoutDropped(lines)); diff != "" {
		t.Errorf("check-nixpkgs lines (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "would fail") {
		t.Errorf("stderr: %s", stderr)
	}
}
