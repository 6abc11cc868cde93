# NVRTC, the runtime compiler, in the shape of Nixpkgs' cuda-modules
# package files (this project's writing).
{ buildRedist }:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_nvrtc";

  outputs = [
    "out"
    "include"
    "lib"
  ];

  meta.description = "CUDA runtime compilation library";
})
