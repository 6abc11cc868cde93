# CUDA's C++ core libraries (Thrust, CUB, libcu++): headers only.
{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_cccl";

  outputs = [ "out" ];

  meta.description = "C++ core compute libraries of CUDA";
}
