# cuBLAS, in the shape of Nixpkgs' cuda-modules package files (this
# project's writing). From CUDA 13 on its libcublasLt loads NVRTC at run
# time; this file does not say so yet (docs/walkthrough.md, step 9).
{ buildRedist }:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "libcublas";

  outputs = [
    "out"
    "include"
    "lib"
  ];

  meta.description = "CUDA Basic Linear Algebra Subroutines";
})
