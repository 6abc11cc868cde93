/**
  Feature attributes for the manifests bundled with this repository:
  `<redist>.<version>` for every `manifests/<redist>/redistrib_<version>.json`
  (fetched from NVIDIA), and `sample.<version>` for the generated sample in
  `sample/` (fetched from the store with a file:// URL, so it builds offline).
  Each redist also has `index` (its manifests merged), and the whole set has
  `index` at the top.
*/
{ pipeline }:
let
  inherit (builtins)
    attrNames
    attrValues
    filter
    fromJSON
    head
    listToAttrs
    mapAttrs
    match
    readDir
    readFile
    ;

  versionOf = file: match "redistrib_([0-9][0-9.]*)\\.json" file;

  manifestsIn =
    dir: filter (f: versionOf f != null) (attrNames (readDir dir));

  redistFeatures =
    { redistName, dir, baseUrl }:
    let
      versions = listToAttrs (
        map (file: {
          name = head (versionOf file);
          value = pipeline.manifestFeatures {
            inherit redistName baseUrl;
            version = head (versionOf file);
            manifest = dir + "/${file}";
          };
        }) (manifestsIn dir)
      );
    in
    versions
    // {
      index = pipeline.mergeIndex {
        name = redistName;
        features = attrValues versions;
      };
      # Every version of the redist; changes: the newest against the one before.
      report = pipeline.report {
        name = redistName;
        features = attrValues versions;
      };
    };

  baseUrls = removeAttrs (fromJSON (readFile ../lib/manifest/base-urls.json)) [ "comment" ];

  nvidia = mapAttrs (
    redistName: baseUrl:
    redistFeatures {
      inherit redistName baseUrl;
      dir = ../manifests + "/${redistName}";
    }
  ) baseUrls;

  sample = redistFeatures {
    redistName = "sample";
    dir = ../sample;
    # A store path: the sandboxed fetch can read it, and it builds offline.
    baseUrl = "file://${../sample}";
  };

  all = nvidia // { inherit sample; };
in
all
// {
  index = pipeline.mergeIndex {
    name = "all";
    features = builtins.concatMap (r: map (v: all.${r}.${v}) (filter (v: v != "index" && v != "report") (attrNames all.${r}))) (attrNames all);
  };
}
