# TestNixWalkerReadsEveryNixpkgsManifest: per manifest file (`files`, a JSON
# list of paths relative to `dir`), the entries nix/manifest.nix finds,
# one string per archive.
{
  lib,
  dir,
  files,
}:
let
  inherit (import (/. + lib + "/manifest.nix")) entries;
  one =
    rel:
    let
      es = entries {
        name = rel;
        manifest = builtins.fromJSON (builtins.readFile (/. + (dir + "/" + rel)));
      };
    in
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
    ) es;
in
builtins.listToAttrs (
  map (rel: {
    name = rel;
    value = one rel;
  }) (builtins.fromJSON files)
)
