package nixpipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// A file in the shape of a profiler's package (written for this test):
// package sets the stand-in lists no member of (gst_all_1, xorg) and
// members of qt6 it does not list.
const nsightSystemsShape = `{
  lib,
  qt6,
  xorg,
  gst_all_1,
  buildRedist,
  cuda_cudart,
  backendStdenv,
}:
let
  pluginDir = "${lib.getLib qt6.qtwayland}/${qt6.qtbase.qtPluginPrefix}/platforms";
  gstreamer = [
    gst_all_1.gst-plugins-base
  ]
  ++ lib.optionals backendStdenv.hostPlatform.isAarch64 [ gst_all_1.gst-plugins-bad ];
in
buildRedist {
  pname = "nsight_systems";
  redistName = "cuda";
  outputs = [ "out" ];
  allowFHSReferences = true;
  nativeBuildInputs = [ qt6.wrapQtAppsHook ];
  buildInputs = [
    xorg.libXcursor
    qt6.qtdeclarative
    pluginDir
    (lib.getOutput "stubs" cuda_cudart)
  ]
  ++ gstreamer;
}
`

// --eval-only evaluates every file for the manifests' cases and fetches
// nothing: the archive directory does not exist, so any fetch would be
// a FAILED line and exit 3. Drift in the files is not looked for.
func TestCheckEvalOnly(t *testing.T) {
	requireNix(t)
	manifests, _ := cudaTree(t)
	noArchives := filepath.Join(t.TempDir(), "no-archives")
	dirs := []string{filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn")}

	clean := withFiles(realShapes, map[string]string{
		"nsight_systems.nix": nsightSystemsShape,
		// Drift (static on linux-sbsa): not an evaluation error.
		"cuda_cupti.nix": strings.Replace(realShapes["cuda_cupti.nix"],
			`++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ]`, `++ [ "static" ]`, 1),
	})
	code, lines, stderr := runCheck(t, noArchives, append([]string{"--eval-only", packagesDir(t, clean)}, dirs...)...)
	if code != 0 || len(lines) != 0 {
		t.Fatalf("exit %d, lines:\n%s\nstderr:\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	// Nothing was built (a build of the missing archives would fail and say so).
	if strings.Contains(stderr, "failed to build") || strings.Contains(stderr, "builder for") {
		t.Errorf("--eval-only built something:\n%s", stderr)
	}

	broken := withFiles(clean, map[string]string{
		"libbroken.nix": "{ buildRedist }: buildRedist { redistName = \"cuda\"; pname = ",
		"libcublasmp.nix": `{
  lib,
  buildRedist,
  lib,
}:
buildRedist { redistName = "cublasmp"; pname = "libcublasmp"; }
`,
		// Takes buildRedist, returns its own set.
		"cuda_culibos.nix": "{ buildRedist }:\n{\n  redistName = \"cuda\";\n  pname = \"cuda_culibos\";\n  outputs = [ \"out\" ];\n}\n",
		// No manifest of cuquantum is given.
		"cuquantum.nix": "{ buildRedist }:\nbuildRedist {\n  redistName = \"cuquantum\";\n  pname = \"cuquantum\";\n  outputs = [ \"out\" \"lib\" ];\n}\n",
		// nvpl: a redist without a known base URL, its manifest named with
		// two numbers as NVIDIA and Nixpkgs do (redistrib_25.5.json).
		"nvpl_fft.nix": "{ buildRedist, backendStdenv }:\nbuildRedist {\n  redistName = \"nvpl\";\n  pname = \"nvpl_fft\";\n" +
			"  outputs = if backendStdenv.hostRedistSystem == \"linux-sbsa\" then throw \"nvpl_fft evaluated on linux-sbsa\" else [ \"out\" ];\n}\n",
	})
	nvpl := filepath.Join(manifests, "nvpl")
	if err := os.MkdirAll(nvpl, 0o755); err != nil {
		t.Fatal(err)
	}
	nvplManifest := `{"release_date": "2025-05-28", "release_label": "25.5", "release_product": "nvpl",
  "nvpl_fft": {"name": "NVPL FFT", "license": "NVPL", "version": "0.4.2.1",
    "linux-sbsa": {"relative_path": "nvpl_fft/linux-sbsa/nvpl_fft-linux-sbsa-0.4.2.1-archive.tar.xz",
      "sha256": "` + strings.Repeat("ab", 32) + `", "md5": "` + strings.Repeat("cd", 16) + `", "size": "1"}}}`
	if err := os.WriteFile(filepath.Join(nvpl, "redistrib_25.5.json"), []byte(nvplManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, lines, stderr = runCheck(t, noArchives, append([]string{"--eval-only", packagesDir(t, broken)}, append(dirs, nvpl)...)...)
	want := []string{
		"WARN  redist cuquantum: 1 package file(s) not checked: no manifest of this redist was given (give its manifest directory, or name one with --redist cuquantum=DIR)",
		"HINT  cuda_culibos.nix: the file mentions buildRedist but does not return a buildRedist call, so nothing of it was checked",
		fmt.Sprintf("ERROR libbroken.nix: does not evaluate: error: syntax error, unexpected end of file at libbroken.nix:1:%d", testenv.NixEOFColumn(t, 60)),
		"ERROR libcublasmp.nix: does not evaluate: error: duplicate formal function argument 'lib' at libcublasmp.nix:4:3",
		"ERROR nvpl_fft.nix: does not evaluate: error: nvpl_fft evaluated on linux-sbsa",
	}
	if code != 1 || !cmp.Equal(want, lines) {
		t.Fatalf("exit %d (want 1), (-want +got):\n%s\nstderr:\n%s", code, cmp.Diff(want, lines), stderr)
	}
}
