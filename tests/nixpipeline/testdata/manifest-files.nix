# TestNixWalkerReadsEveryNixpkgsManifest: per manifest file (`files`, a JSON
# list of paths relative to `dir`), the entries nix/manifest.nix finds,
# one string per archive.
{
  nixLib,
  dir,
  files,
}:
let
  inherit (import (/. + nixLib + "/manifest.nix")) entries;
  entryKey = import ./entry-key.nix;
  one =
    rel:
    let
      es = entries {
        name = rel;
        manifest = builtins.fromJSON (builtins.readFile (/. + (dir + "/" + rel)));
      };
    in
    map entryKey es;
in
builtins.listToAttrs (
  map (rel: {
    name = rel;
    value = one rel;
  }) (builtins.fromJSON files)
)
