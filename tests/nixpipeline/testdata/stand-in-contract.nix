# TestStandInEnforcesBuildGoModuleContract: evaluates nix/package.nix
# (attrs = "package") or a buildGoModule call with the JSON attributes in
# `attrs` against the offline stand-in, and returns the derivation's name.
{
  standIn,
  pkgFile,
  attrs,
}:
let
  buildGoModule = import (/. + standIn + "/build-go-module.nix") {
    system = "x86_64-linux";
    go = "/nonexistent-go";
    busybox = "/nonexistent-busybox";
  };
  lib.optionalString = c: s: if c then s else "";
in
if attrs == "package" then
  (import (/. + pkgFile) {
    inherit buildGoModule lib;
    src = "/nonexistent-src";
    version = "1";
    nixLib = "/nonexistent-lib";
  }).name
else
  (buildGoModule (
    {
      pname = "p";
      version = "1";
      src = "/nonexistent-src";
    }
    // builtins.fromJSON attrs
  )).name
