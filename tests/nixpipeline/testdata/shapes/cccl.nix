{
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
