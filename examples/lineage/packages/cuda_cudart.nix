# The CUDA runtime library.
{ lib, buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_cudart";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  meta = {
    description = "CUDA runtime";
    license = lib.licenses.unfree;
  };
}
