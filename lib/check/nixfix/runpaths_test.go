package nixfix

import (
	"strings"
	"testing"
)

const cublasFile = `{
  buildRedist,
  cuda_cudart,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "libcublas";

  outputs = [
    "out"
    "lib"
  ];

  buildInputs = [ cuda_cudart ];
})
`

// TestProposeRunpaths: the NVRTC directory added under a version
// condition on the package's version, with a comment naming the soname,
// and the arguments it needs added; a load in every release needs no
// condition.
func TestProposeRunpaths(t *testing.T) {
	got, err := ProposeRunpaths(cublasFile, []Runpath{
		{Provider: "cuda_nvrtc", Sonames: []string{"libnvrtc.so.13"}, Since: "13.0.0.19"},
		{Provider: "numactl", Sonames: []string{"libnuma.so.%s"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  buildRedist,
  cuda_cudart,
  cuda_nvrtc,
  lib,
  numactl,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "libcublas";

  outputs = [
    "out"
    "lib"
  ];

  appendRunpaths = [
    # libnuma.so.%s: loaded at run time (dlopen), no DT_NEEDED
    "${lib.getLib numactl}/lib"
  ] ++ lib.optionals (lib.versionAtLeast finalAttrs.version "13.0.0.19") [
    # libnvrtc.so.13: loaded at run time (dlopen), no DT_NEEDED
    "${lib.getLib cuda_nvrtc}/lib"
  ];

  buildInputs = [ cuda_cudart ];
})
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestProposeRunpathsAppends: a file whose appendRunpaths is a list (or
// lists joined by ++) gets the new directories appended to it.
func TestProposeRunpathsAppends(t *testing.T) {
	text := strings.Replace(cublasFile, "  buildInputs", `  appendRunpaths = lib.optionals (lib.versionAtLeast finalAttrs.version "12.0") [
    "${lib.getLib libnvjitlink}/lib"
  ];

  buildInputs`, 1)
	got, err := ProposeRunpaths(text, []Runpath{{Provider: "cuda_nvrtc", Sonames: []string{"libnvrtc.so.13"}, Since: "13.0.0.19"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `  appendRunpaths = lib.optionals (lib.versionAtLeast finalAttrs.version "12.0") [
    "${lib.getLib libnvjitlink}/lib"
  ] ++ lib.optionals (lib.versionAtLeast finalAttrs.version "13.0.0.19") [
    # libnvrtc.so.13: loaded at run time (dlopen), no DT_NEEDED
    "${lib.getLib cuda_nvrtc}/lib"
  ];
`
	if !strings.Contains(got, want) || strings.Count(got, "appendRunpaths") != 1 || !strings.Contains(got, "  cuda_nvrtc,\n") {
		t.Errorf("got:\n%s\nwant it to hold:\n%s", got, want)
	}
}

// TestProposeRunpathsRefusals: an appendRunpaths that is no list, a
// version condition without finalAttrs, a dotted provider.
func TestProposeRunpathsRefusals(t *testing.T) {
	nvrtc := []Runpath{{Provider: "cuda_nvrtc", Sonames: []string{"libnvrtc.so.13"}, Since: "13.0.0.19"}}
	for name, tc := range map[string]struct {
		text string
		adds []Runpath
		want string
	}{
		"appendRunpaths": {strings.Replace(cublasFile, "buildInputs", `appendRunpaths = if true then [ ] else [ "/x" ];
  buildInputs`, 1), nvrtc, "no list or ++ chain of lists"},
		"no finalAttrs": {strings.Replace(strings.Replace(cublasFile, "(finalAttrs: {", "{", 1), "})", "}", 1), nvrtc, "takes no finalAttrs"},
		"dotted":        {cublasFile, []Runpath{{Provider: "xorg.libX11", Sonames: []string{"libX11.so.6"}}}, "no argument name"},
	} {
		out, err := ProposeRunpaths(tc.text, tc.adds)
		if err == nil || !strings.Contains(err.Error(), tc.want) || out != tc.text {
			t.Errorf("%s: %v, want a refusal with %q and the text unchanged", name, err, tc.want)
		}
	}
}
