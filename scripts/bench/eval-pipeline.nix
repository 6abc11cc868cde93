# The pipeline (nix/pipeline.nix) over every manifest of a directory laid
# out as manifests/ is (<redist>/redistrib_<version>.json), wired the way
# nix/bundled.nix wires the bundled set: one manifestFeatures per manifest,
# an index per redist and one over everything. scripts/eval-bench.sh
# evaluates the drvPath of `index` (forcing every fetch, unpack, detect and
# aggregate) against scripts/bench/eval-baseline.nix on the same directory.
{ detectorProgram, aggregateProgram, manifests, system ? "x86_64-linux" }:
let
  inherit (builtins) attrNames concatMap filter head listToAttrs match readDir;
  pipeline = import ../../nix/pipeline.nix { inherit detectorProgram aggregateProgram system; };
  versionOf = file: match "redistrib_([0-9][0-9.]*)\\.json" file;
  redist = redistName:
    let dir = manifests + "/${redistName}"; in
    map (file: pipeline.manifestFeatures {
      inherit redistName;
      version = head (versionOf file);
      manifest = dir + "/${file}";
      baseUrl = "https://example.invalid/${redistName}";
    }) (filter (f: versionOf f != null) (attrNames (readDir dir)));
  perRedist = map (r: pipeline.mergeIndex { name = r; features = redist r; })
    (attrNames (readDir manifests));
in
{
  index = pipeline.mergeIndex {
    name = "all";
    features = concatMap redist (attrNames (readDir manifests));
  };
  inherit perRedist;
}
