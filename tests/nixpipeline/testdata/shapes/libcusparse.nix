{
  lib,
  buildRedist,
  libnvjitlink,
}:
let
  inherit (lib.strings) versionOlder;
  inherit (lib.lists) optionals;
in
buildRedist (finalAttrs: {
  pname = "libcusparse";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ]
  ++ optionals (versionOlder finalAttrs.version "11.0") [ "samples" ];

  buildInputs = [ (lib.getLib libnvjitlink) ];
})
