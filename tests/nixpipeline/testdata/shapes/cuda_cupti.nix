{
  lib,
  buildRedist,
  backendStdenv,
}:
buildRedist (finalAttrs: {
  pname = "cuda_cupti";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "samples"
  ]
  ++ lib.optionals (backendStdenv.hostNixSystem == "x86_64-linux") [ "static" ];

  # The samples' Makefiles name /usr/local/cuda.
  allowFHSReferences = true;
})
