# A CUDA package set composed from a cuda-modules tree the way Nixpkgs
# composes cudaPackages_<version>: one attribute per packages/<name>.nix
# (called with a buildRedist that returns its arguments), and the aliases
# file's overlay on top. It answers, for one CUDA version, the pname each
# asked-for attribute builds (null where the set has no such attribute),
# so a test sees what users of the set would get after check-nixpkgs --fix.
{
  dir,
  cuda,
  names,
}:
let
  lib = {
    licenses = {
      unfree = "unfree";
      nvidiaCudaRedist = "nvidiaCudaRedist";
    };
    # What Nixpkgs' lib.warn prints, on stderr.
    warn = msg: builtins.trace "evaluation warning: ${msg}";
  };
  cudaAtLeast = v: builtins.compareVersions cuda v >= 0;
  scope = {
    inherit lib cudaAtLeast;
    buildRedist = args: args;
  };
  call =
    file:
    let
      f = import (dir + "/packages/${file}");
    in
    f (builtins.intersectAttrs (builtins.functionArgs f) scope);
  nixFiles = builtins.filter (f: builtins.match ".*\\.nix" f != null) (
    builtins.attrNames (builtins.readDir (dir + "/packages"))
  );
  packages = builtins.listToAttrs (
    map (f: {
      name = builtins.substring 0 (builtins.stringLength f - 4) f;
      value = call f;
    }) nixFiles
  );
  prev = packages // {
    inherit cudaAtLeast;
  };
  final = prev // import (dir + "/aliases.nix") { inherit lib; } final prev;
in
builtins.listToAttrs (
  map (name: {
    inherit name;
    value = if final ? ${name} then final.${name}.pname else null;
  }) names
)
