package pkgeval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// equateEmpty treats nil and empty string slices alike.
var equateEmpty = cmp.Transformer("nonNil", func(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
})

func evaluator() *Evaluator {
	return &Evaluator{StandIn: filepath.Join(testenv.RepoRoot(), "nix", "buildredist-standin.nix"), Jobs: 2}
}

func writeFiles(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return dir, names
}

var twoCases = []Case{
	{Platform: "linux-x86_64", CudaVersion: "12.8", RedistName: "cuda", Releases: map[string]string{"good": "12.8.57"}},
	{Platform: "linux-sbsa", CudaVersion: "12.8", RedistName: "cuda", Releases: map[string]string{"good": "12.8.57"}},
}

func TestEvaluateIsolatesEachFile(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{
		"good.nix": `{ buildRedist, backendStdenv, lib }: buildRedist (finalAttrs: { redistName = "cuda"; pname = "good";
  outputs = [ "out" ] ++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux" && finalAttrs.version == "12.8.57") [ "static" ]; })
`,
		"missing.nix": `{ buildRedist, backendStdenv }: buildRedist { redistName = "cuda"; pname = "missing";
  outputs = backendStdenv.noSuchThing; }
`,
		"syntax.nix":   `{ buildRedist }: buildRedist { redistName = "cuda"; pname = `,
		"typeerr.nix":  `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "typeerr"; outputs = [ "out" ] ++ "lib"; }`,
		"sbsaonly.nix": `{ buildRedist, backendStdenv }: buildRedist { redistName = "cuda"; pname = "sbsaonly"; outputs = if backendStdenv.hostRedistSystem == "linux-sbsa" then throw "no sbsa" else [ "out" ]; }`,
		// A package set's members come from the file's text (qt6.anything);
		// a stand-in the file cannot extend lacks what it does not have.
		"inputs.nix": `{ buildRedist, backendStdenv }: buildRedist { redistName = "cuda"; pname = "inputs"; outputs = [ "out" "lib" ];
  buildInputs = [ backendStdenv.noSuchInput ]; }`,
		"badtype.nix":        `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "badtype"; outputs = "out"; }`,
		"other.nix":          `{ buildRedist }: buildRedist { redistName = "cudnn"; pname = "cudnn"; outputs = throw "never forced"; }`,
		"stdenv.nix":         `{ backendStdenv }: backendStdenv.mkDerivation { pname = "nccl"; }`,
		"nested/package.nix": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "nested"; }`,
	})
	e := evaluator()
	got, err := e.Evaluate(context.Background(), dir, files, twoCases)
	if err != nil {
		t.Fatal(err)
	}
	check := func(file string, i int, want Result) {
		t.Helper()
		if diff := cmp.Diff(want, got[file][i], equateEmpty); diff != "" {
			t.Errorf("%s case %d (-want +got):\n%s", file, i, diff)
		}
	}
	check("good.nix", 0, Result{Pname: "good", RedistName: "cuda", Version: "12.8.57", Outputs: []string{"out", "static"}, HasDeps: true})
	check("good.nix", 1, Result{Pname: "good", RedistName: "cuda", Version: "12.8.57", Outputs: []string{"out"}, HasDeps: true})
	for i := range twoCases {
		check("missing.nix", i, Result{Error: "error: attribute 'noSuchThing' missing at missing.nix:2:13"})
		check("syntax.nix", i, Result{Error: fmt.Sprintf("error: syntax error, unexpected end of file at syntax.nix:1:%d", testenv.NixEOFColumn(t, 60))})
		check("other.nix", i, Result{Skip: true, RedistName: "cudnn"})
		check("badtype.nix", i, Result{Error: "error: buildRedist argument outputs has the wrong type (string)"})
		check("stdenv.nix", i, Result{NotBuildRedist: true})
		check("nested/package.nix", i, Result{Pname: "nested", RedistName: "cuda", Version: "0-unsupported", Outputs: []string{"out"}, HasDeps: true})
		check("inputs.nix", i, Result{Pname: "inputs", RedistName: "cuda", Version: "0-unsupported", Outputs: []string{"out", "lib"},
			DepsError: "error: attribute 'noSuchInput' missing at inputs.nix:2:19"})
		if msg := got["typeerr.nix"][i].Error; !strings.Contains(msg, "error: ") || !strings.Contains(msg, "typeerr.nix:1:") {
			t.Errorf("typeerr.nix: %q", msg)
		}
	}
	check("sbsaonly.nix", 0, Result{Pname: "sbsaonly", RedistName: "cuda", Version: "0-unsupported", Outputs: []string{"out"}, HasDeps: true})
	check("sbsaonly.nix", 1, Result{Error: "error: no sbsa"})
}

// When every file evaluates, one nix-instantiate does it all.
func TestEvaluateOneRunWhenAllEvaluate(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	files := map[string]string{}
	for _, p := range []string{"a", "b", "c", "d"} {
		files[p+".nix"] = `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "` + p + `"; outputs = [ "out" "lib" ]; }`
	}
	dir, names := writeFiles(t, files)
	e := evaluator()
	got, err := e.Evaluate(context.Background(), dir, names, twoCases)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || e.Runs() != 1 {
		t.Errorf("%d files in %d runs, want 4 in 1", len(got), e.Runs())
	}
}

// The stand-ins give what the real files use: every lib function the
// issue lists, backendStdenv, flags, _cuda, and package arguments that
// stand for their own names through getLib/getOutput/getBin/getDev.
func TestStandIns(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{
		"all.nix": `{
  _cuda,
  backendStdenv,
  buildRedist,
  cudaAtLeast,
  cudaMajorMinorVersion,
  cudaOlder,
  flags,
  lib,
  libcublas,
  patchelf,
  stdenv,
  zlib,
  autoPatchelfHook,
  withExtra ? false,
}:
let
  inherit (lib.lists) optionals;
  inherit (lib.strings) versionOlder;
  ok = [
    (lib.optionals true [ 1 ] == [ 1 ] && optionals false [ 1 ] == [ ])
    (lib.optionalString true "x" == "x" && lib.optionalString false "x" == "")
    (lib.versionAtLeast "12.8.1" "12.8" && !(lib.versionAtLeast "12.6" "12.8"))
    (versionOlder "10.13" "10.14.1" && lib.versionOlder "9" "10")
    (lib.all (lib.flip lib.versionAtLeast "7.5") backendStdenv.cudaCapabilities)
    (lib.elem "b" [ "a" "b" ] && lib.hasPrefix "lib" "libcublas")
    (lib.versions.major "12.8.57" == "12" && lib.versions.majorMinor "12.8.57" == "12.8")
    (lib.concatStringsSep "," [ "a" "b" ] == "a,b")
    (lib.subtractLists [ "b" ] [ "a" "b" "c" ] == [ "a" "c" ])
    (lib.optionalAttrs true { a = 1; } == { a = 1; } && lib.optionalAttrs false { a = 1; } == { })
    (lib.getExe patchelf == "${patchelf}/bin/patchelf")
    (lib.makeBinPath [ zlib ] == "${zlib}/bin")
    (cudaAtLeast "12.8" && cudaOlder "13.0" && cudaMajorMinorVersion == "12.8")
    (backendStdenv.hostNixSystem == "aarch64-linux" && backendStdenv.hostRedistSystem == "linux-sbsa")
    (stdenv.hostPlatform.isAarch64 && !flags.isJetsonBuild)
    (builtins.length (_cuda.lib._mkMissingPackagesAssertions { inherit zlib; }) == 1)
    (!withExtra)
  ];
in
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "all";
  outputs = [ "out" ] ++ optionals (lib.all (x: x) ok) [ "lib" ];
  buildInputs = [ (lib.getLib libcublas) (lib.getOutput "static" zlib) (lib.getBin patchelf) (lib.getDev libcublas) null ];
  propagatedBuildInputs = [ autoPatchelfHook ];
  meta.license = _cuda.lib.licenses.cuda;
})
`,
	})
	c := Case{Platform: "linux-sbsa", CudaVersion: "12.8", RedistName: "cuda"}
	got, err := evaluator().Evaluate(context.Background(), dir, files, []Case{c})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Pname: "all", RedistName: "cuda", Version: "0-unsupported", Outputs: []string{"out", "lib"}, HasDeps: true,
		BuildInputs: []string{"libcublas", "zlib", "patchelf", "libcublas"}, PropagatedBuildInputs: []string{"autoPatchelfHook"}}
	if diff := cmp.Diff(want, got["all.nix"][0], equateEmpty); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNixMessage(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"error: attribute 'hostNixSystem' missing\n\n       at /p/packages/cuda_cupti.nix:17:21:\n\n           16|\n", "error: attribute 'hostNixSystem' missing at cuda_cupti.nix:17:21"},
		{"\x1b[31;1merror:\x1b[0m cccl: no sbsa yet\n(use '--show-trace' to show detailed location information)\n", "error: cccl: no sbsa yet"},
		{"warning: something\nerror: value is a string while a list was expected\n\n       at /elsewhere/x.nix:1:2:\n", "error: value is a string while a list was expected at /elsewhere/x.nix:1:2"},
		{"", "nix-instantiate failed without a message"},
		{"segfault\n", "segfault"},
	} {
		if got := NixMessage(tc.stderr, "/p/packages"); got != tc.want {
			t.Errorf("NixMessage(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

func TestFiles(t *testing.T) {
	dir, _ := writeFiles(t, map[string]string{
		"a.nix":             "{ buildRedist }: buildRedist { }",
		"b.nix":             "{ stdenv }: stdenv.mkDerivation { }",
		"c/package.nix":     "{ buildRedist }: buildRedist { }",
		"c/helper.nix":      "{ buildRedist }: buildRedist { }",
		"d/e/package.nix":   "{ buildRedist }: buildRedist { }",
		"README.md":         "buildRedist",
		"f/package.nix":     "{ }: { }",
		"g.nix/package.nix": "{ buildRedist }: buildRedist { }",
		// libcal/default.nix in Nixpkgs; a package.nix wins over it.
		"h/default.nix": "{ buildRedist }: buildRedist (finalAttrs: { })",
		"h/hook.sh":     "buildRedist",
		"c/default.nix": "{ buildRedist }: buildRedist { }",
	})
	got, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.nix", "c/package.nix", "g.nix/package.nix", "h/default.nix"}; !cmp.Equal(want, got.Files) || len(got.Unread) != 0 {
		t.Errorf("Files = %v, want %v and nothing unread", got, want)
	}
}

// FuzzNixMessage: any stderr gives a non-empty message, never a panic.
func FuzzNixMessage(f *testing.F) {
	f.Add("error: attribute 'x' missing\n\n       at /d/a.nix:1:2:\n", "/d")
	f.Add("\x1b[31merror:\x1b[0m boom\n(use '--show-trace' to show detailed location information)\n", "")
	f.Add("at \n error:", "/")
	f.Fuzz(func(t *testing.T, stderr, dir string) {
		if NixMessage(stderr, dir) == "" || nixMessage(stderr, dir, true) == "" {
			t.Fatal("empty message")
		}
	})
}

// Package sets and packages the stand-ins do not list (`qt6.qtdeclarative`,
// `gst_all_1.gst-plugins-base`, `xorg.libXcursor`, `qt6.qtbase.qtPluginPrefix`)
// get the members the file selects, as Nixpkgs' nsight_systems.nix needs
// (the file here is written for the test in that shape); a newer
// file's `cudaConfig` has the capabilities.
func TestStandInsScopeMembersFromText(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{
		"nsight_systems.nix": `{
  lib,
  qt6,
  xorg,
  glibc,
  gst_all_1,
  cudaConfig,
  buildRedist,
  cuda_cudart,
  backendStdenv,
}:
let
  inherit (backendStdenv.hostPlatform) system;
  # A directory per system, and an error for a system it does not know.
  toolDir =
    {
      x86_64-linux = "tools-x64";
      aarch64-linux = "tools-arm64";
    }
    .${system} or (throw "no tool directory for ${system}");
  pluginDir = "${lib.getLib qt6.qtwayland}/${qt6.qtbase.qtPluginPrefix}";
  testedCapabilities = [ "7.5" "8.0" "8.6" "8.9" "9.0" "10.0" "12.0" ];
in
buildRedist {
  pname = "nsight_systems";
  redistName = "cuda";
  outputs = [ "out" ]
    ++ lib.optionals (lib.subtractLists testedCapabilities cudaConfig.cudaCapabilities == [ ]) [ "lib" ]
    ++ lib.optionals (lib.versionAtLeast glibc.version "0") [ "bin" ];
  env.dropPaths = toString [ "${toolDir}/extras" ];
  nativeBuildInputs = [ qt6.wrapQtAppsHook ];
  buildInputs = [
    xorg.libXcursor
    qt6.qtbase
    qt6.qtdeclarative
    pluginDir
    gst_all_1.gst-plugins-base
    (lib.getOutput "stubs" cuda_cudart)
  ]
  ++ lib.optionals backendStdenv.hostPlatform.isAarch64 [ gst_all_1.gst-plugins-bad ];
}
`,
	})
	c := Case{Platform: "linux-x86_64", CudaVersion: "12.8", RedistName: "cuda"}
	got, err := evaluator().Evaluate(context.Background(), dir, files, []Case{c})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Pname: "nsight_systems", RedistName: "cuda", Version: "0-unsupported", Outputs: []string{"out", "lib", "bin"}, HasDeps: true,
		BuildInputs: []string{"libXcursor", "qtbase", "qtdeclarative", "gst-plugins-base", "cuda_cudart"}}
	if diff := cmp.Diff(want, got["nsight_systems.nix"][0], equateEmpty); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// One broken file among many is found by halving the set, not by one run
// per file; a file that does not parse costs one run for every case, not
// two per case. Run counts, not times: they do not depend on the machine.
func TestEvaluateFindsBrokenFilesInFewRuns(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	files := map[string]string{
		"missing.nix": `{ buildRedist, backendStdenv }: buildRedist { redistName = "cuda"; pname = "missing"; outputs = backendStdenv.noSuchThing; }`,
	}
	for i := 0; i < 15; i++ {
		name := fmt.Sprintf("good%02d", i)
		files[name+".nix"] = `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "` + name + `"; outputs = [ "out" ]; }`
	}
	dir, names := writeFiles(t, files)
	e := evaluator()
	got, err := e.Evaluate(context.Background(), dir, names, twoCases[:1])
	if err != nil {
		t.Fatal(err)
	}
	if got["missing.nix"][0].Error == "" || got["good07.nix"][0].Pname != "good07" || len(got) != 16 {
		t.Fatalf("results: %+v", got)
	}
	if e.Runs() >= 16 {
		t.Errorf("%d nix-instantiate runs for one broken file among 16, want fewer than one per file", e.Runs())
	}

	var cases []Case
	for i := 0; i < 10; i++ {
		cases = append(cases, Case{Platform: "linux-x86_64", CudaVersion: fmt.Sprintf("12.%d", i), RedistName: "cuda"})
	}
	dir, names = writeFiles(t, map[string]string{
		"dup.nix":       "{\n  lib,\n  buildRedist,\n  lib,\n}:\nbuildRedist { redistName = \"cuda\"; pname = \"dup\"; }\n",
		"a.nix":         `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "a"; }`,
		"b.nix":         `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "b"; }`,
		"c/package.nix": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "c"; }`,
	})
	e = evaluator()
	got, err = e.Evaluate(context.Background(), dir, names, cases)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if want := "error: duplicate formal function argument 'lib' at dup.nix:4:3"; got["dup.nix"][i].Error != want {
			t.Errorf("case %d: error %q, want %q", i, got["dup.nix"][i].Error, want)
		}
		if got["c/package.nix"][i].Pname != "c" {
			t.Errorf("case %d: c/package.nix: %+v", i, got["c/package.nix"][i])
		}
	}
	if e.Runs() >= int64(len(cases)) {
		t.Errorf("%d nix-instantiate runs for a file that does not parse, with %d cases: want fewer than one per case", e.Runs(), len(cases))
	}
}
