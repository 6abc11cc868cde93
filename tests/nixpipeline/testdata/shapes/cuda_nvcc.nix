{
  lib,
  backendStdenv,
  buildRedist,
  cuda_cccl,
  cudaAtLeast,
  cudaOlder,
  makeBinaryWrapper,
  setupCudaHook,
}:
buildRedist (finalAttrs: {
  pname = "cuda_nvcc";
  redistName = "cuda";

  outputs = [ "out" ];

  allowFHSReferences = true;

  nativeBuildInputs = [ makeBinaryWrapper ];
  propagatedBuildInputs = [ setupCudaHook ];

  postInstall =
    let
      nvvm = if cudaAtLeast "12.5" then "nvvm" else "$(_NVVM_BRANCH_)";
      includes = lib.concatStringsSep " " [
        "INCLUDES"
        "+="
        "-I${lib.getOutput "include" cuda_cccl}/include"
      ];
    in
    lib.optionalString (finalAttrs.finalPackage.meta.available && !(cudaOlder "11.0")) ''
      substituteInPlace bin/nvcc.profile --replace-fail '$(TOP)/${nvvm}' "$out/${nvvm}"
      echo '${includes}' >> bin/nvcc.profile
      wrapProgramBinary bin/nvcc --suffix PATH : ${lib.makeBinPath [ backendStdenv.cc ]}
    '';

  brokenAssertions = [
    {
      message = "this test's nvcc takes no libc++ on x86_64-linux";
      assertion = backendStdenv.hostNixSystem != "x86_64-linux" || backendStdenv.cc.libcxx == null;
    }
  ];

  meta.mainProgram = "nvcc";
})
