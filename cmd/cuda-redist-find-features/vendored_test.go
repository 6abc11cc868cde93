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

// TestPrintVendoredIndexSkipsOtherLib: nix-locate lines of libraries
// below another folder's lib/ (what docs/vendored.md's recipe lists
// besides each package's lib/) are skipped and counted, on stderr and in
// the summary, and the index is read.
func TestPrintVendoredIndexSkipsOtherLib(t *testing.T) {
	dir := vendoredDir(t)
	index := filepath.Join(dir, "nix-locate.txt")
	lines := "qt6.qtbase.out  9,000,000 r /nix/store/aaaa-qtbase-6.7.0/lib/libQt6Core.so.6\n" +
		"jetbrains.idea  1,000 r /nix/store/bbbb-idea-2024.1/idea/lib/libpty.so\n" +
		"vscode  2,000 r /nix/store/cccc-vscode-1.90/share/vscode/lib/libffmpeg.so\n"
	if err := os.WriteFile(index, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("print-vendored", "--no-default-index", "--soname-index", index, dir)
	if code != 0 || !strings.Contains(stdout, "libQt6Core.so.6 (qt6.qtbase.out)") ||
		!strings.Contains(stderr, "soname index read") || !strings.Contains(stderr, "entries=1") || !strings.Contains(stderr, "skippedNotInLib=2") {
		t.Errorf("exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	// Nothing vendored: the summary names the index and the lines skipped.
	if err := os.WriteFile(index, []byte(lines[strings.Index(lines, "\n")+1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI("print-vendored", "--no-default-index", "--soname-index", index, dir)
	if want := "is in the soname index (" + index + "; 2 nix-locate lines not under a store path's lib/ skipped).\n"; code != 0 || !strings.HasSuffix(stdout, want) {
		t.Errorf("exit %d, stderr %s, stdout %q, want it to end %q", code, stderr, stdout, want)
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

// TestPrintVendoredEscapesNewlines: a newline in a package key reaches
// print-vendored's table and its ties escaped (see forgedline_test.go).
func TestPrintVendoredEscapesNewlines(t *testing.T) {
	lib := func(p, soname string) map[string]any {
		return map[string]any{"path": p, "kind": "shared", "soname": soname, "needed": []string{}}
	}
	detail := map[string]any{
		forged: map[string]any{"linux-x86_64": map[string]any{"None": map[string]any{"sha256": "", "relativePath": "", "features": map[string]any{
			"providedLibs": []string{"libOpenCL.so.1"},
			"libraries":    []any{lib("lib/libOpenCL.so.1", "libOpenCL.so.1"), lib("host-linux-x64/libQt6Core.so.6", "libQt6Core.so.6")},
		}}}},
	}
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "detail.json"), detail)
	code, stdout, stderr := runCLI("print-vendored", dir)
	if code != 0 || !strings.Contains(stdout, "NVIDIA's") {
		t.Fatalf("exit %d, no vendored library and tie: %s\n%s", code, stderr, stdout)
	}
	noForgedLine(t, "print-vendored", stdout)
}

// TestPrintVendoredNothing: a release without a vendored library says so
// in words (not a bare header); --json stays an empty list.
func TestPrintVendoredNothing(t *testing.T) {
	dir := t.TempDir()
	detail := `{"cuda_cudart": {"linux-x86_64": {"None": {"sha256": "", "relativePath": "", "features": {
    "libraries": [{"path": "lib/libcudart.so.12", "kind": "shared", "soname": "libcudart.so.12", "needed": []}]}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(detail), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("print-vendored", dir)
	want := "No vendored library: no shared library of the 1 archive(s) is in the soname index (debian-bookworm-main.sonames (embedded)).\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %s, stdout %q, want %q", code, stderr, stdout, want)
	}
	if code, stdout, _ = runCLI("print-vendored", "--json", dir); code != 0 || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("--json: exit %d, %q, want []", code, stdout)
	}
}
