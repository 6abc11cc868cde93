package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A detail.json of two archives, cut down to what the check reads: a
// Nsight-like tree with Qt 6, an ICU of another version, a Qt plugin and
// libOpenCL.so.1, which cuda_opencl provides in lib/.
const vendoredDetail = `{
  "cuda_opencl": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "providedLibs": ["libOpenCL.so.1"],
    "libraries": [{"path": "lib/libOpenCL.so.1", "kind": "shared", "soname": "libOpenCL.so.1", "needed": []}]}}}},
  "nsight_systems": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "libraries": [
      {"path": "host-linux-x64/Plugins/platforms/libqxcb.so", "kind": "shared", "soname": "", "needed": ["libQt6Gui.so.6"]},
      {"path": "host-linux-x64/libOpenCL.so.1", "kind": "shared", "soname": "libOpenCL.so.1", "needed": []},
      {"path": "host-linux-x64/libQt6Core.so.6", "kind": "shared", "soname": "libQt6Core.so.6", "needed": ["libicuuc.so.71"],
       "versionDefinitions": ["Qt_6"], "comments": ["GCC: (GNU) 10.3.1"]},
      {"path": "host-linux-x64/libQt6Gui.so.6", "kind": "shared", "soname": "libQt6Gui.so.6", "needed": ["libQt6Core.so.6"]},
      {"path": "host-linux-x64/libicuuc.so.71", "kind": "shared", "soname": "libicuuc.so.71", "needed": []},
      {"path": "host-linux-x64/libnvlog.so", "kind": "shared", "soname": "libnvlog.so", "needed": ["libQt6Core.so.6"]}
    ]}}}}
}
`

// TestPrintVendored: the default index (Debian bookworm main) finds Qt 6,
// ICU in another version and the Qt plugin in its folder; libOpenCL.so.1
// is NVIDIA's, found in two archives (the tie rule).
func TestPrintVendored(t *testing.T) {
	dir := vendoredDir(t)
	code, stdout, stderr := runCLI("print-vendored", dir)
	want := `PACKAGE         PLATFORM      VARIANT  LIBRARY                                      UPSTREAM                 IN A FREE DISTRIBUTION                                NEEDED BY
nsight_systems  linux-x86_64  None     host-linux-x64/Plugins/platforms/libqxcb.so  Qt 6 plugin (platforms)  libqxcb.so (Debian bookworm main)                     -
                                       host-linux-x64/libQt6Core.so.6               Qt6Core                  libQt6Core.so.6 (Debian bookworm main)                libQt6Gui.so.6 libnvlog.so
                                       host-linux-x64/libQt6Gui.so.6                Qt6Gui                   libQt6Gui.so.6 (Debian bookworm main)                 libqxcb.so
                                       host-linux-x64/libicuuc.so.71                ICU                      libicuuc.so.72 (Debian bookworm main) [otherVersion]  libQt6Core.so.6

Not vendored, NVIDIA's (a package of the manifests provides the soname in lib/):
  cuda_opencl lib/libOpenCL.so.1: libOpenCL.so.1 is NVIDIA's (cuda_opencl provides it), though the index has libOpenCL.so.1 (Debian bookworm main)
  nsight_systems host-linux-x64/libOpenCL.so.1: libOpenCL.so.1 is NVIDIA's (cuda_opencl provides it), though the index has libOpenCL.so.1 (Debian bookworm main)
`
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %s, table (-want +got):\n%s", code, stderr, cmp.Diff(want, stdout))
	}
}

func vendoredDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(vendoredDetail), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPrintVendoredIndex: an --index of nix-locate lines alone
// (--no-default-index) names its attributes as providers.
func TestPrintVendoredIndex(t *testing.T) {
	dir := vendoredDir(t)

	index := filepath.Join(dir, "nix-locate.txt")
	lines := "qt6.qtbase.out  9,000,000 r /nix/store/aaaa-qtbase-6.7.0/lib/libQt6Core.so.6\n"
	if err := os.WriteFile(index, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("print-vendored", "--json", "--no-default-index", "--soname-index", index, filepath.Join(dir, "detail.json"))
	if code != 0 || strings.Count(stdout, `"path": "host-linux-x64/`) != 1 || !strings.Contains(stdout, `"provider": "qt6.qtbase.out"`) ||
		!strings.Contains(stdout, `"version definitions: Qt_6"`) {
		t.Errorf("--index nix-locate: exit %d, stderr %s\n%s", code, stderr, stdout)
	}
}

// TestPrintVendoredBadIndex: a bad index line fails naming file and line;
// no index at all is a usage error.
func TestPrintVendoredBadIndex(t *testing.T) {
	dir := vendoredDir(t)
	index := filepath.Join(dir, "nix-locate.txt")
	if err := os.WriteFile(index, []byte("libfoo.so.1\nnot a line at all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("print-vendored", "--soname-index", index, dir); code != exitFail || !strings.Contains(stderr, "nix-locate.txt line 2") {
		t.Errorf("bad index: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("print-vendored", "--no-default-index", dir); code != exitUsage || !strings.Contains(stderr, "--soname-index") {
		t.Errorf("no index at all: exit %d, %s", code, stderr)
	}
}
