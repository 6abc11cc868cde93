# Test shape: the runtime, whose headers pull in the compiler's and
# CCCL's, and which brings the compatibility library on Jetson.
{
  lib,
  _cuda,
  buildRedist,
  backendStdenv,
  cudaAtLeast,
  addDriverRunpath,
  cuda_nvcc,
  cuda_crt,
  cuda_cccl,
  cuda_compat,
}:
let
  headersOf = lib.getOutput "include";
in
buildRedist {
  pname = "cuda_cudart";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  allowFHSReferences = false;

  propagatedBuildOutputs = [
    "stubs"
    "static"
  ];

  propagatedBuildInputs =
    map headersOf (
      [ cuda_nvcc ] ++ lib.optionals (cudaAtLeast "13.0") [ cuda_crt ] ++ [ cuda_cccl ]
    )
    ++ lib.optionals (cuda_compat != null && backendStdenv.hasJetsonCudaCapability) [ cuda_compat ];

  postPatch = ''
    sed -i 's|^Libs:.*|& -Wl,-rpath,${addDriverRunpath.driverLink}/lib|' pkg-config/cudart-*.pc
  '';

  meta = {
    description = "Runtime of the fake CUDA release";
    license = _cuda.lib.licenses.cuda;
  };
}
