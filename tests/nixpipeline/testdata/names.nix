# TestManifestFeaturesNamesMatchEntryDerivations: over every bundled
# manifest, the sample's and those in dir, the archives whose src,
# unpacked and features derivations are named differently by
# pipeline.manifestFeatures and pipeline.entryDerivations, and how many
# archives were compared.
{
  repo,
  detectorProgram,
  aggregateProgram,
  dir,
}:
let
  nixLib = import (/. + repo + "/nix");
  pipeline = nixLib.pipeline {
    detectorProgram = /. + detectorProgram;
    aggregateProgram = /. + aggregateProgram;
    system = "x86_64-linux";
  };
  inherit (builtins)
    attrNames
    concatMap
    filter
    fromJSON
    match
    readDir
    readFile
    ;
  isManifest = f: match "redistrib_.*\\.json" f != null;
  manifestsIn = d: map (f: d + "/${f}") (filter isManifest (attrNames (readDir d)));
  redists = d: concatMap (r: manifestsIn (d + "/${r}")) (attrNames (readDir d));
  files =
    redists (/. + repo + "/manifests")
    ++ manifestsIn (/. + repo + "/sample")
    ++ manifestsIn (/. + dir);
  baseUrl = "https://example.invalid";
  entriesOf =
    file:
    nixLib.manifest.entries {
      name = "m";
      manifest = fromJSON (readFile file);
    };
  mismatches =
    file:
    let
      agg = pipeline.manifestFeatures {
        redistName = "r";
        version = "1";
        manifest = file;
        inherit baseUrl;
      };
      names = d: [
        d.src.name
        d.unpacked.name
        d.features.name
      ];
    in
    concatMap (
      e:
      let
        variant = if e.variant == null then "None" else e.variant;
        fast = names agg.entries.${e.package}.${e.platform}.${variant};
        general = names (pipeline.entryDerivations {
          inherit baseUrl;
          entry = e;
        });
      in
      if fast == general then
        [ ]
      else
        [
          {
            inherit (e) relativePath;
            inherit fast general;
          }
        ]
    ) (entriesOf file);
in
{
  count = builtins.length (concatMap entriesOf files);
  mismatches = concatMap mismatches files;
}
