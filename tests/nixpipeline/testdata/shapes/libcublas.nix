{
  lib,
  buildRedist,
  cudaMajorMinorVersion,
  cuda_cudart,
  cuda_nvrtc,
}:
buildRedist (finalAttrs: {
  pname = "libcublas";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # A run path chosen by the release's version.
  appendRunpaths = lib.optionals (lib.versionAtLeast finalAttrs.version "12.8") [
    "${lib.getLib cuda_nvrtc}/lib"
  ];

  propagatedBuildInputs = [ cuda_cudart ];

  postPatch = ''
    echo "Requires: cudart-${cudaMajorMinorVersion}" \
      >> share/pkgconfig/cublas-${cudaMajorMinorVersion}.pc
  '';

  meta.homepage = "https://example.invalid/libcublas";
})
