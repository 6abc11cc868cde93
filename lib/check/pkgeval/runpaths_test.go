package pkgeval

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRunpathsAndRuntimeDependencies: what a package file puts in
// appendRunpaths (the shape Nixpkgs uses: a directory of a package,
// under a version condition) and runtimeDependencies reaches the result,
// and RunpathPackages names the packages of those directories.
func TestRunpathsAndRuntimeDependencies(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{
		"libcublas.nix": `{ buildRedist, lib, cuda_nvrtc, numactl, libcufile }:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "libcublas";
  appendRunpaths = lib.optionals (lib.versionAtLeast finalAttrs.version "0") [
    # libnvrtc.so.13, loaded at run time by libcublasLt
    "${lib.getLib cuda_nvrtc}/lib"
  ] ++ [ "/run/opengl-driver/lib" ];
  runtimeDependencies = [ numactl ];
  buildInputs = [ libcufile ];
})
`,
	})
	c := Case{Platform: "linux-x86_64", CudaVersion: "13.0", RedistName: "cuda"}
	got, err := evaluator().Evaluate(context.Background(), dir, files, []Case{c})
	if err != nil {
		t.Fatal(err)
	}
	r := got["libcublas.nix"][0]
	if diff := cmp.Diff([]string{"/nix/store/00000000000000000000000000000000-cuda_nvrtc/lib", "/run/opengl-driver/lib"}, r.AppendRunpaths); diff != "" {
		t.Errorf("appendRunpaths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cuda_nvrtc"}, r.RunpathPackages()); diff != "" {
		t.Errorf("RunpathPackages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"numactl"}, r.RuntimeDependencies); diff != "" {
		t.Errorf("runtimeDependencies (-want +got):\n%s", diff)
	}
}
