# TestNixWalkerListsWhatGoAccepts: for each of the n generated manifests
# dir/redistrib_<i>.json, what nix/manifest.nix lists (one string per
# archive), the .drv of its whole pipeline (every derivation made from
# the walker's entries, all instantiated) and the .drv of its aggregate
# with no archive selected (the Go parser's validation of the manifest,
# and nothing to fetch).
{
  nixLib,
  aggregateProgram,
  dir,
  n,
}:
let
  inherit (import (/. + nixLib + "/manifest.nix")) entries;
  entryKey = import ./entry-key.nix;
  # Only the aggregates are built: the aggregate builder stands in for
  # the builders of the rest, which are instantiated, never run.
  pipeline = import (/. + nixLib + "/pipeline.nix") {
    detectorProgram = /. + aggregateProgram;
    aggregateProgram = /. + aggregateProgram;
    system = builtins.currentSystem;
  };
  one =
    i:
    let
      file = /. + dir + "/redistrib_${toString i}.json";
      args = {
        redistName = "gen";
        version = toString i;
        manifest = file;
        baseUrl = "file:///nowhere";
      };
    in
    {
      entries =
        map entryKey (entries {
          name = toString i;
          manifest = builtins.fromJSON (builtins.readFile file);
        });
      pipeline = (pipeline.manifestFeatures args).drvPath;
      validation = (pipeline.manifestFeatures (args // { packages = [ ]; })).drvPath;
    };
in
builtins.genList one (builtins.fromJSON n)
