package nixpipeline

import (
	"encoding/json"
	"fmt"
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
var realShapes = map[string]string{
	"cuda_cudart.nix": `# Test shape: the runtime, whose headers pull in the compiler's and
# CCCL's, and which brings the compatibility library on Jetson.
{
  lib,
  _cuda,
  buildRedist,
  backendStdenv,
  cudaAtLeast,
  addDriverRunpath,
  cuda_nvcc,
  cuda_crt,
  cuda_cccl,
  cuda_compat,
}:
let
  headersOf = lib.getOutput "include";
in
buildRedist {
  pname = "cuda_cudart";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  allowFHSReferences = false;

  propagatedBuildOutputs = [
    "stubs"
    "static"
  ];

  propagatedBuildInputs =
    map headersOf ([ cuda_nvcc ] ++ lib.optionals (cudaAtLeast "13.0") [ cuda_crt ] ++ [ cuda_cccl ])
    ++ lib.optionals (cuda_compat != null && backendStdenv.hasJetsonCudaCapability) [ cuda_compat ];

  postPatch = ''
    sed -i 's|^Libs:.*|& -Wl,-rpath,${addDriverRunpath.driverLink}/lib|' pkg-config/cudart-*.pc
  '';

  meta = {
    description = "Runtime of the fake CUDA release";
    license = _cuda.lib.licenses.cuda;
  };
}
`,
	"libcublas.nix": `{
  lib,
  buildRedist,
  cudaMajorMinorVersion,
  cuda_cudart,
  cuda_nvrtc,
}:
buildRedist (finalAttrs: {
  pname = "libcublas";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # A run path chosen by the release's version.
  appendRunpaths = lib.optionals (lib.versionAtLeast finalAttrs.version "12.8") [
    "${lib.getLib cuda_nvrtc}/lib"
  ];

  propagatedBuildInputs = [ cuda_cudart ];

  postPatch = ''
    echo "Requires: cudart-${cudaMajorMinorVersion}" >> share/pkgconfig/cublas-${cudaMajorMinorVersion}.pc
  '';

  meta.homepage = "https://example.invalid/libcublas";
})
`,
	"libnvjitlink.nix": `{
  lib,
  _cuda,
  flags,
  cudaOlder,
  buildRedist,
}:
buildRedist {
  pname = "libnvjitlink";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # A rule made up for the test: Jetson builds want 12.4 or later.
  brokenAssertions = [
    {
      message = "this test's libnvjitlink wants CUDA 12.4 or later on Jetson";
      assertion = flags.isJetsonBuild -> !(cudaOlder "12.4");
    }
  ];

  platformAssertions = _cuda.lib._mkMissingPackagesAssertions { };

  meta.license = lib.licenses.nvidiaCudaRedist;
}
`,
	"libcusparse.nix": `{
  lib,
  buildRedist,
  libnvjitlink,
}:
let
  inherit (lib.strings) versionOlder;
  inherit (lib.lists) optionals;
in
buildRedist (finalAttrs: {
  pname = "libcusparse";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ]
  ++ optionals (versionOlder finalAttrs.version "11.0") [ "samples" ];

  buildInputs = [ (lib.getLib libnvjitlink) ];
})
`,
	"libcusolver.nix": `{
  lib,
  buildRedist,
  libcublas,
  libcusparse,
  libnvjitlink,
}:
buildRedist {
  pname = "libcusolver";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # One input per CUDA library libcusolver.so.11 needs.
  buildInputs = [
    libnvjitlink
    (lib.getLib libcublas)
    (lib.getLib libcusparse)
  ];
}
`,
	"cuda_cupti.nix": `{
  lib,
  buildRedist,
  backendStdenv,
}:
buildRedist (finalAttrs: {
  pname = "cuda_cupti";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "samples"
  ]
  ++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ];

  # The samples' Makefiles name /usr/local/cuda.
  allowFHSReferences = true;
})
`,
	"cccl.nix": `{
  lib,
  fetchpatch,
  cudaOlder,
  cudaAtLeast,
  buildRedist,
}:
buildRedist {
  # The pname depends on the CUDA version.
  pname = if cudaAtLeast "13.3" then "cccl" else "cuda_cccl";
  redistName = "cuda";

  # Headers only: one output.
  outputs = [ "out" ];

  prePatch = lib.optionalString (cudaAtLeast "13.0") ''
    cp -r include/cccl/. include/
  '';

  patches = lib.optionals (cudaOlder "13.0" && cudaAtLeast "12.9") [
    (fetchpatch {
      url = "https://example.invalid/cccl-headers.patch";
      hash = "";
    })
  ];
}
`,
	"cuda_nvcc.nix": `{
  lib,
  backendStdenv,
  buildRedist,
  cuda_cccl,
  cudaAtLeast,
  cudaOlder,
  makeBinaryWrapper,
  setupCudaHook,
}:
buildRedist (finalAttrs: {
  pname = "cuda_nvcc";
  redistName = "cuda";

  outputs = [ "out" ];

  allowFHSReferences = true;

  nativeBuildInputs = [ makeBinaryWrapper ];
  propagatedBuildInputs = [ setupCudaHook ];

  postInstall =
    let
      nvvm = if cudaAtLeast "12.5" then "nvvm" else "$(_NVVM_BRANCH_)";
      includes = lib.concatStringsSep " " [
        "INCLUDES"
        "+="
        "-I${lib.getOutput "include" cuda_cccl}/include"
      ];
    in
    lib.optionalString (finalAttrs.finalPackage.meta.available && !(cudaOlder "11.0")) ''
      substituteInPlace bin/nvcc.profile --replace-fail '$(TOP)/${nvvm}' "$out/${nvvm}"
      echo '${includes}' >> bin/nvcc.profile
      wrapProgramBinary bin/nvcc --suffix PATH : ${lib.makeBinPath [ backendStdenv.cc ]}
    '';

  brokenAssertions = [
    {
      message = "this test's nvcc takes no libc++ on x86_64-linux";
      assertion = backendStdenv.hostNixSystem != "x86_64-linux" || backendStdenv.cc.libcxx == null;
    }
  ];

  meta.mainProgram = "nvcc";
})
`,
	"cuda_nvml_dev.nix": `{
  buildRedist,
  addDriverRunpath,
  cudaMajorMinorVersion,
}:
buildRedist (finalAttrs: {
  pname = "cuda_nvml_dev";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "stubs"
  ];

  propagatedBuildOutputs = [ finalAttrs.outputStubs ];
  includeRemoveStubsFromRunpathHook = true;
  allowFHSReferences = true;

  postPatch = ''
    sed -i 's|-lnvidia-ml|& -Wl,-rpath,${addDriverRunpath.driverLink}/lib|' \
      share/pkgconfig/nvidia-ml-${cudaMajorMinorVersion}.pc
  '';
})
`,
	"cudnn.nix": `{
  lib,
  _cuda,
  zlib,
  patchelf,
  libcublas,
  cuda_nvrtc,
  cuda_cupti,
  buildRedist,
  backendStdenv,
}:
buildRedist (
  finalAttrs:
  let
    atLeast = lib.versionAtLeast finalAttrs.version;
    older = lib.versionOlder finalAttrs.version;
    capabilitiesFrom75 = lib.all (lib.flip lib.versionAtLeast "7.5") backendStdenv.cudaCapabilities;
  in
  {
    pname = "cudnn";
    redistName = "cudnn";

    outputs = [
      "out"
      "dev"
      "include"
      "lib"
      "static"
    ]
    # Never taken: here for elem, hasPrefix, subtractLists and versions.
    ++ lib.optionals (
      lib.versions.majorMinor finalAttrs.version == "8.9"
      && lib.hasPrefix "8" (lib.versions.major finalAttrs.version)
      && lib.elem "doc" (lib.subtractLists [ "out" ] [ "doc" ])
    ) [ "doc" ];

    buildInputs = [
      (lib.getLib libcublas)
      zlib
    ];

    appendRunpaths = [ "${lib.getLib cuda_nvrtc}/lib" ];

    postFixup = lib.optionalString (atLeast "8" && older "9") ''
      ${lib.getExe patchelf} --add-needed libcudnn_extra.so ''${!outputLib:?}/lib/libcudnn.so
    '';

    platformAssertions = [
      {
        message = "this test's cudnn ${finalAttrs.version} wants capabilities 7.5 and up";
        assertion = atLeast "9.12" -> capabilitiesFrom75;
      }
    ];

    meta = {
      license = _cuda.lib.licenses.cudnn;
      maintainers = with lib.maintainers; [ ];
    }
    // lib.optionalAttrs (atLeast "9") { changelog = "https://example.invalid/cudnn/changes"; };
  }
)
`,
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
	var errs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "ERROR") {
			errs = append(errs, l)
		}
	}
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

	// --json: one object per line with the fields, then the
	// summary.
	code, jsonLines, _ := runCheck(t, archives, "--json", pkgs, filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn"))
	if code != 1 || len(jsonLines) != len(lines)+1 || !strings.HasPrefix(jsonLines[len(jsonLines)-1], `{"summary":{"files":`) {
		t.Fatalf("--json: exit %d, %d lines, want 1 and %d and a summary last", code, len(jsonLines), len(lines)+1)
	}
	jsonLines = jsonLines[:len(jsonLines)-1]
	found := false
	for _, l := range jsonLines {
		var f struct {
			Level, Kind, Package, Platform, Variant, Version, Message, File string
			Declared, Needed                                                []string
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		// Each line is what print-feature-schema --format finding describes.
		if v, err := jsonschema.UnmarshalJSON(strings.NewReader(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		} else if err := schema.Validate("finding", v); err != nil {
			t.Errorf("%s: %v", l, err)
		}
		if f.Kind == "missingDependency" && f.Package == "libcusolver" && f.Platform == "linux-x86_64" {
			found = f.Level == "error" && f.File == "libcusolver.nix" && f.Version == "12.8.0" && f.Variant == "None" &&
				strings.Contains(f.Message, "libcusparse.so.12")
		}
	}
	if !found {
		t.Errorf("no missingDependency object for libcusolver in:\n%s", strings.Join(jsonLines, "\n"))
	}
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
