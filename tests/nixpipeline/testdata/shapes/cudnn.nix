{
  lib,
  _cuda,
  zlib,
  patchelf,
  libcublas,
  cuda_nvrtc,
  cuda_cupti,
  buildRedist,
  backendStdenv,
}:
buildRedist (
  finalAttrs:
  let
    atLeast = lib.versionAtLeast finalAttrs.version;
    older = lib.versionOlder finalAttrs.version;
    capabilitiesFrom75 = lib.all (lib.flip lib.versionAtLeast "7.5") backendStdenv.cudaCapabilities;
  in
  {
    pname = "cudnn";
    redistName = "cudnn";

    outputs = [
      "out"
      "dev"
      "include"
      "lib"
      "static"
    ]
    # Never taken: here for elem, hasPrefix, subtractLists and versions.
    ++ lib.optionals (
      lib.versions.majorMinor finalAttrs.version == "8.9"
      && lib.hasPrefix "8" (lib.versions.major finalAttrs.version)
      && lib.elem "doc" (lib.subtractLists [ "out" ] [ "doc" ])
    ) [ "doc" ];

    buildInputs = [
      (lib.getLib libcublas)
      zlib
    ];

    appendRunpaths = [ "${lib.getLib cuda_nvrtc}/lib" ];

    postFixup = lib.optionalString (atLeast "8" && older "9") ''
      ${lib.getExe patchelf} --add-needed libcudnn_extra.so ''${!outputLib:?}/lib/libcudnn.so
    '';

    platformAssertions = [
      {
        message = "this test's cudnn ${finalAttrs.version} wants capabilities 7.5 and up";
        assertion = atLeast "9.12" -> capabilitiesFrom75;
      }
    ];

    meta = {
      license = _cuda.lib.licenses.cudnn;
      maintainers = with lib.maintainers; [ ];
    }
    // lib.optionalAttrs (atLeast "9") { changelog = "https://example.invalid/cudnn/changes"; };
  }
)
