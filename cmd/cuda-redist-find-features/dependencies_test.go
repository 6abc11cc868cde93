package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
