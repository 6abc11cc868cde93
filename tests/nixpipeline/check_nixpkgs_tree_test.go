package nixpipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testLib stands in for a Nixpkgs checkout's lib/: the functions the
// package files use, written for this test (not the project's stand-in),
// plus a marker the stand-in does not have, so a file can tell which lib
// it was evaluated with.
const testLib = `let
  inherit (builtins) all compareVersions concatStringsSep elem filter head splitVersion stringLength substring;
  optionals = c: l: if c then l else [ ];
  versionAtLeast = a: b: compareVersions a b >= 0;
  versionOlder = a: b: compareVersions a b < 0;
  getOutput = o: p: p.${o} or p.out or p;
in
rec {
  inherit all elem optionals versionAtLeast versionOlder getOutput concatStringsSep;
  isNixpkgsTestLib = true;
  optionalString = c: s: if c then s else "";
  optionalAttrs = c: a: if c then a else { };
  flip = f: a: b: f b a;
  subtractLists = e: filter (x: !(elem x e));
  hasPrefix = p: s: substring 0 (stringLength p) s == p;
  getLib = getOutput "lib";
  getBin = getOutput "bin";
  getDev = getOutput "dev";
  getExe = p: "${getBin p}/bin/${p.meta.mainProgram}";
  makeBinPath = ps: concatStringsSep ":" (map (p: "${getBin p}/bin") ps);
  versions = {
    major = v: head (splitVersion v);
    majorMinor = v: concatStringsSep "." [ (head (splitVersion v)) (builtins.elemAt (splitVersion v) 1) ];
  };
  lists = { inherit optionals elem subtractLists; };
  strings = { inherit optionalString hasPrefix versionOlder versionAtLeast concatStringsSep; };
  licenses = throw "licenses: not in the test lib";
  maintainers = throw "maintainers: not in the test lib";
}
`

// nixpkgsTree lays out a directory like a Nixpkgs checkout: lib/, the
// package files, and the manifests in _cuda/manifests/<redist>/.
func nixpkgsTree(t *testing.T, files map[string]string, manifests string) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/default.nix", testLib)
	for name, body := range files {
		write("pkgs/development/cuda-modules/packages/"+name, body)
	}
	for _, redist := range []string{"cuda", "cudnn"} {
		found, err := filepath.Glob(filepath.Join(manifests, redist, "redistrib_*.json"))
		if err != nil || len(found) == 0 {
			t.Fatalf("no manifests for %s: %v", redist, err)
		}
		for _, f := range found {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			write("pkgs/development/cuda-modules/_cuda/manifests/"+redist+"/"+filepath.Base(f), string(data))
		}
	}
	return root
}

// --nixpkgs DIR alone: the packages and manifests are found inside DIR,
// and DIR/lib is the lib the files see.
func TestCheckNixpkgsTree(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	files := withFiles(realShapes, map[string]string{
		// Declares doc only under the checkout's lib, where it ends up empty.
		"cuda_cupti.nix": strings.Replace(realShapes["cuda_cupti.nix"], `++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ];`,
			`++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ]
  ++ lib.optionals (lib.isNixpkgsTestLib or false) [ "doc" ];`, 1),
	})
	root := nixpkgsTree(t, files, manifests)
	code, lines, stderr := runCheck(t, archives, "--hints=false", "--nixpkgs", root)
	want := []string{
		"ERROR cuda_cupti linux-sbsa None 12.8.0: declared [out dev include lib samples doc] needed [out samples include lib]: declared output doc ends up empty: buildRedist moves nothing into it",
		"ERROR cuda_cupti linux-x86_64 None 12.8.0: declared [out dev include lib samples static doc] needed [out samples include lib static]: declared output doc ends up empty: buildRedist moves nothing into it",
	}
	if code != 1 || !cmp.Equal(want, lines) {
		t.Fatalf("exit %d (want 1), lines (-want +got):\n%s\nstderr:\n%s", code, cmp.Diff(want, lines), stderr)
	}
	// The same files with the stand-in lib: the marker is absent, no error.
	pkgs := filepath.Join(root, "pkgs/development/cuda-modules/packages")
	mdir := filepath.Join(root, "pkgs/development/cuda-modules/_cuda/manifests")
	code, lines, stderr = runCheck(t, archives, "--hints=false", pkgs, filepath.Join(mdir, "cuda"), filepath.Join(mdir, "cudnn"))
	if code != 0 || len(lines) != 0 {
		t.Fatalf("stand-in lib: exit %d, lines:\n%s\nstderr:\n%s", code, strings.Join(lines, "\n"), stderr)
	}
}
