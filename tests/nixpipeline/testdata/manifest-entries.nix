# TestManifestParsersAgree: the entries nix/manifest.nix finds in each of
# the n generated manifests dir/<i>.json, one string per archive, or null
# where it rejects the manifest.
{
  lib,
  dir,
  n,
}:
let
  inherit (import (/. + lib + "/manifest.nix")) entries;
  one =
    i:
    let
      es = entries {
        name = toString i;
        manifest = builtins.fromJSON (builtins.readFile (/. + dir + "/${toString i}.json"));
      };
      r = builtins.tryEval (builtins.deepSeq es es);
    in
    if r.success then
      map (
        e:
        builtins.concatStringsSep "|" [
          e.package
          e.platform
          (if e.variant == null then "None" else e.variant)
          e.relativePath
          e.sha256
          e.version
          e.releaseInfo.name
          e.releaseInfo.license
          e.releaseInfo.licensePath
        ]
      ) r.value
    else
      null;
in
builtins.genList one (builtins.fromJSON n)
