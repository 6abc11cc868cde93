{
  lib,
  _cuda,
  flags,
  cudaOlder,
  buildRedist,
}:
buildRedist {
  pname = "libnvjitlink";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # A rule made up for the test: Jetson builds want 12.4 or later.
  brokenAssertions = [
    {
      message = "this test's libnvjitlink wants CUDA 12.4 or later on Jetson";
      assertion = flags.isJetsonBuild -> !(cudaOlder "12.4");
    }
  ];

  platformAssertions = _cuda.lib._mkMissingPackagesAssertions { };

  meta.license = lib.licenses.nvidiaCudaRedist;
}
