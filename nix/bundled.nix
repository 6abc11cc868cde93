/**
  Feature attributes for the manifests bundled with this repository:
  `<redist>.<version>` for every `manifests/<redist>/redistrib_<version>.json`
  (fetched from NVIDIA), and `sample.<version>` for the generated sample in
  `sample/` (fetched from the store with a file:// URL, so it builds offline).
  Each redist also has `index` (its manifests merged) and `report` (all its
  releases), and the whole set has `index` at the top. A release's `report`
  compares it with the previous release of its redist (versions in numeric
  order), when there is one.

  # Inputs

  `pipeline`
  : An instantiated nix/pipeline.nix
    (`import ./pipeline.nix { detectorProgram, aggregateProgram, system }`).

  `cliProgram`
  : The static CLI, or a derivation with it in bin/: the builder of the
    reports (nix/report.nix), the one derivation here the CLI builds.

  `system`
  : The system the reports build on.

  # Type

  ```
  bundled :: { pipeline :: AttrSet; cliProgram :: path | derivation; system :: string; } -> {
    ${redist} :: { ${version} :: derivation; index :: derivation; report :: derivation; };
    sample :: { ... };
    index :: derivation;
  }
  ```

  # Examples
  :::{.example}
  ## `bundled` usage example

  ```nix
  (import ./nix/bundled.nix {
    pipeline = import ./nix/pipeline.nix {
      detectorProgram = ./crff-detector;
      aggregateProgram = ./crff-aggregate;
      system = "x86_64-linux";
    };
    cliProgram = ./crff;
    system = "x86_64-linux";
  }).sample."1.0.0"
  => «derivation /nix/store/…-sample-1.0.0-features.drv»
  ```

  :::
*/
{
  pipeline,
  cliProgram,
  system,
}:
let
  inherit (builtins)
    attrNames
    attrValues
    compareVersions
    elemAt
    filter
    fromJSON
    genList
    head
    length
    listToAttrs
    mapAttrs
    match
    readDir
    readFile
    sort
    ;

  # The release report of aggregates (nix/report.nix), built by the CLI.
  report = args: import ./report.nix ({ inherit cliProgram system; } // args);

  /**
    The version in a manifest's file name, as a one-element list, or null
    when `file` is no `redistrib_<version>.json`.

    # Inputs

    `file`
    : A file name.

    # Type

    ```
    versionOf :: string -> [ string ] | null
    ```

    # Examples
    :::{.example}
    ## `versionOf` usage example

    ```nix
    versionOf "redistrib_12.8.0.json"
    => [ "12.8.0" ]
    ```

    :::
  */
  versionOf = file: match "redistrib_([0-9][0-9.]*)\\.json" file;

  /**
    The manifest file names (`redistrib_<version>.json`) in a directory.

    # Inputs

    `dir`
    : The directory to list.

    # Type

    ```
    manifestsIn :: path -> [ string ]
    ```
  */
  manifestsIn =
    dir: filter (f: versionOf f != null) (attrNames (readDir dir));

  /**
    The version just before each one, by numeric order (11.10.0 after
    11.9.0): version → previous version, absent for the oldest.

    # Inputs

    `versions`
    : The versions, in any order.

    # Type

    ```
    previousVersions :: [ string ] -> attrsOf string
    ```

    # Examples
    :::{.example}
    ## `previousVersions` usage example

    ```nix
    previousVersions [ "11.10.0" "11.9.0" "12.0.0" ]
    => { "11.10.0" = "11.9.0"; "12.0.0" = "11.10.0"; }
    ```

    :::
  */
  previousVersions =
    versions:
    let
      sorted = sort (a: b: compareVersions a b < 0) versions;
    in
    listToAttrs (
      genList (i: {
        name = elemAt sorted (i + 1);
        value = elemAt sorted i;
      }) (length sorted - 1)
    );

  /**
    The features of every manifest of one redist: `<version>` (with its
    `report` against the previous release), `index` and `report`.

    # Inputs

    `redistName`
    : The product, e.g. `"cudnn"`.

    `dir`
    : The directory of its `redistrib_<version>.json` files.

    `baseUrl`
    : Where the manifests' `relative_path`s are resolved.

    # Type

    ```
    redistFeatures :: { redistName :: string; dir :: path; baseUrl :: string; } -> AttrSet
    ```
  */
  redistFeatures =
    { redistName, dir, baseUrl }:
    let
      hasHashes = builtins.pathExists (dir + "/unpacked-hashes.json");
      aggregates = listToAttrs (
        map (file: {
          name = head (versionOf file);
          value = pipeline.manifestFeatures {
            inherit redistName baseUrl;
            version = head (versionOf file);
            manifest = dir + "/${file}";
            # The unpacked trees' NAR hashes a run recorded beside the
            # manifests: those unpacks are fixed-output derivations.
            unpackedHashes = if hasHashes then dir + "/unpacked-hashes.json" else null;
          };
        }) (manifestsIn dir)
      );
      previous = previousVersions (attrNames aggregates);
      # A release's report shows it with its changes against the previous
      # release of the redist (and that release, folded); the oldest stands
      # alone.
      versions = mapAttrs (
        version: aggregate:
        aggregate
        // {
          report = report (
            {
              name = "${redistName}-${version}";
            }
            // (
              if previous ? ${version} then
                {
                  features = [
                    aggregates.${previous.${version}}
                    aggregate
                  ];
                  against = previous.${version};
                }
              else
                { features = [ aggregate ]; }
            )
          );
        }
      ) aggregates;
    in
    versions
    // {
      index = pipeline.mergeIndex {
        name = redistName;
        features = attrValues versions;
      };
      # Every version of the redist; changes: the newest against the one before.
      report = report {
        name = redistName;
        features = attrValues versions;
      };
    };

  # Plain data, without the installed package's string context (manifest.nix).
  baseUrls = removeAttrs (fromJSON (
    builtins.unsafeDiscardStringContext (readFile ../lib/manifest/base-urls.json)
  )) [ "comment" ];

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
    features = builtins.concatMap (
      r: map (v: all.${r}.${v}) (filter (v: v != "index" && v != "report") (attrNames all.${r}))
    ) (attrNames all);
  };
}
