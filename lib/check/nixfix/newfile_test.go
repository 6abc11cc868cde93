package nixfix

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
)

func TestNewFile(t *testing.T) {
	requireNix(t)
	opts := buildredist.Options{CudaMajor: "12"}
	tests := []struct {
		name     string
		archives []NewArchive
		want     string
	}{
		{"one list everywhere", []NewArchive{{Platform: "linux-x86_64", Options: opts, Tree: hdrs}, {Platform: "linux-sbsa", Options: opts, Tree: hdrs}}, `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
  ];
}
`},
		{"branches on platform and CUDA major, the stubs output, /usr/", []NewArchive{{Platform: "linux-x86_64", Variant: "cuda12", Options: opts, Tree: rtX86},
			{Platform: "linux-sbsa", Variant: "cuda12", Options: opts, Tree: rtSbsa},
			{Platform: "linux-x86_64", Variant: "cuda13", Options: buildredist.Options{CudaMajor: "13"}, Tree: tool}}, `{
  backendStdenv,
  buildRedist,
  cudaMajorVersion,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [ "out" ]
  ++ lib.optionals (cudaMajorVersion == "13") [ "bin" ]
  ++ lib.optionals (cudaMajorVersion == "12") [
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64" && cudaMajorVersion == "12") [ "static" ];

  allowFHSReferences = true;
}
`},
	}
	if _, err := NewFile("cuda", "cuda_rt", []NewArchive{{Platform: "linux-x86_64", Tree: hdrs}, {Platform: "linux-sbsa", Variant: "cuda12", Tree: hdrs}}); err == nil {
		t.Errorf("NewFile of archives with and without variants: no error")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewFile("cuda", "cuda_rt", tc.archives)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("NewFile (-want +got):\n%s", diff)
				}
			}
			if !nixParses(t, got) {
				t.Fatalf("does not parse:\n%s", got)
			}
			// Evaluated with the stand-in for each archive's platform and
			// CUDA version, the file builds every archive.
			for _, a := range tc.archives {
				v := "12.8"
				if a.Variant == "cuda13" {
					v = "13.0"
				}
				c := evaluate(t, got, []target{{a.Platform, v, a.Tree}})[0]
				if errs := errorsOf(c, c.Outputs, c.Hook, c.FHS); len(errs) > 0 {
					t.Errorf("%s %s: %s\n%s", a.Platform, a.Variant, errs[0].Message, got)
				}
			}
			if strings.Contains(got, "lib.") != strings.Contains(got, "  lib,\n") {
				t.Errorf("lib used and taken disagree:\n%s", got)
			}
		})
	}
}
