package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
)

// A detail.json as an aggregate writes it, cut down to the libraries.
const dependencyDetail = `{
  "libcublas": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libcublas.so.12", "libcublasLt.so.12"], "neededLibs": ["libc.so.6", "libcublasLt.so.12"]}}}},
  "libcusolver": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libcusolver.so.11"], "neededLibs": ["libcublas.so.12", "libcuda.so.1", "libgomp.so.1", "libnvJitLink.so.12", "libz.so.1"]}}}},
  "libnvjitlink": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libnvJitLink.so.12"], "neededLibs": ["libc.so.6"]}}}},
  "cudnn": {"linux-sbsa": {"cuda12": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": {"12": ["libcudnn.so.9"]}, "neededLibs": {"12": ["libcublas.so.12"]}}}}}
}
`

func TestPrintDependencies(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(dependencyDetail), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("print-dependencies", dir)
	want := `PACKAGE      PLATFORM      VARIANT  NEEDS               PROVIDED BY
cudnn        linux-sbsa    cuda12   libcublas.so.12     (nothing in the release)
libcusolver  linux-x86_64  None     libcublas.so.12     libcublas
                                    libnvJitLink.so.12  libnvjitlink
                                    libz.so.1           (nothing in the release)
`
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %s, table (-want +got):\n%s", code, stderr, cmp.Diff(want, stdout))
	}
	code, stdout, _ = runCLI("print-dependencies", "--json", filepath.Join(dir, "detail.json"))
	if code != 0 || !strings.Contains(stdout, `"unresolved": [
      "libz.so.1"
    ]`) || !strings.Contains(stdout, `"providers": [
          "libnvjitlink"
        ]`) {
		t.Errorf("--json: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("print-dependencies", filepath.Join(dir, "nope.json")); code != exitFail || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

// TestPrintDependenciesRuntimeLoads: the loads the aggregate resolved
// are listed after the DT_NEEDED sonames, marked as run-time loads, with
// their provider and evidence, in the table and in --json (which the
// dependencies schema accepts).
func TestPrintDependenciesRuntimeLoads(t *testing.T) {
	const detail = `{
  "libcublas": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libcublasLt.so.13"], "neededLibs": ["libc.so.6"]},
    "runtimeLoads": [
      {"library": "lib/libcublasLt.so.13", "name": "libcuda.so.1", "confidence": "high",
       "provider": {"kind": "driver", "sonames": ["libcuda.so.1"], "reason": "the CUDA driver API"},
       "evidence": {"kind": "soname", "section": ".rodata", "offset": 4096, "string": "libcuda.so.1"}},
      {"library": "lib/libcublasLt.so.13", "name": "libnvrtc.so.13", "confidence": "high",
       "provider": {"kind": "package", "package": "cuda_nvrtc", "sonames": ["libnvrtc.so.13"], "reason": "another package of the release provides it"},
       "evidence": {"kind": "soname", "section": ".rodata", "offset": 171001731, "string": "libnvrtc.so.13"}}]}}},
  "cuda_nvrtc": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libnvrtc.so.13"], "neededLibs": []}}}}
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(detail), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("print-dependencies", dir)
	want := `PACKAGE    PLATFORM      VARIANT  NEEDS                      PROVIDED BY   EVIDENCE (loaded at run time)
libcublas  linux-x86_64  None     libcuda.so.1 (run time)    (the driver)  libcublasLt.so.13, high: soname in .rodata at 0x1000
                                  libnvrtc.so.13 (run time)  cuda_nvrtc    libcublasLt.so.13, high: soname in .rodata at 0xa314783
`
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %s, table (-want +got):\n%s", code, stderr, cmp.Diff(want, stdout))
	}
	code, stdout, stderr = runCLI("print-dependencies", "--json", dir)
	if code != 0 || !strings.Contains(stdout, `"runtimeLoads": [`) || !strings.Contains(stdout, `"package": "cuda_nvrtc"`) {
		t.Fatalf("--json: exit %d, %s\n%s", code, stderr, stdout)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err == nil {
		err = schema.Validate("dependencies", v)
	}
	if err != nil {
		t.Errorf("--json against the dependencies schema: %v", err)
	}
}
