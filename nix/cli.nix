/**
  The entry point of the CLI (`process-manifests`, `check-nixpkgs`): one
  instantiation of the pipeline over the manifests of a run, and the one
  list of their archives (the walker's, `nix/manifest.nix`) that the CLI
  builds, checks and reports on.

  Everything the CLI knows arrives as data: `argsFile` is the path of a
  JSON file read with `builtins.fromJSON`, never Nix source assembled by
  the CLI, so a directory named `${builtins.trace "x" ""}` stays a name.

  The JSON:

  ```
  {
    "detectorProgram": "/abs/path/of/cuda-redist-detector",   (absent with archivesOnly)
    "aggregateProgram": "/abs/path/of/cuda-redist-aggregate", (absent with archivesOnly)
    "system": "x86_64-linux" | null,            (null: builtins.currentSystem)
    "manifests": [ { "redistName", "version", "manifest": "/abs/path", "baseUrl",
                     "unpackedHashes": { "format": 2, "trees": { … } } | null } ],
                                                  (the records of its archives, as the CLI
                                                   read and checked them: never the file)
    "index": "name" | null,                       (also merge the manifests' indexes)
    "archivesOnly": false | true,                 (true: the archives alone, no derivation)
    "unpinned": false | true                      (true: also each pinned unpack without its pin)
  }
  ```

  The result (for `nix-instantiate --eval --strict --json --read-write-mode`,
  which writes the .drv files while evaluating their paths, so one
  evaluation is enough to build with `nix-store --realise`):

  ```
  {
    manifests = [
      {
        version;
        aggregate = { drv, out } | null;
        entries = [
          {
            package, platform, variant, relativePath, sha256;
            fetch = { drv, out } | null;
            unpack = { drv, out } | null;
            detect = { drv, out } | null;
            pinnedNarHash = "sha256-…" | null;       (the unpack is a fixed-output derivation)
            unpinned = { drv, out } | null;          (with pinnedNarHash and "unpinned":
                                                      the same unpack, not pinned)
            unpinnedDetect = { drv, out } | null;    (and its detection)
            pinnedName;                              (the pinned unpack's name)
          }
        ];
      }
    ];
    index = { drv, out } | null;
  }
  ```

  Each derivation is listed under its stage (`fetch`, `unpack`, `detect`
  of an entry; a manifest's `aggregate`; the `index`): the CLI's progress
  knows a derivation's stage from here, never from its name. `fetch.out`
  is the archive's store path: the CLI puts local (file://) archives
  there with `nix-store --add-fixed`, so nothing has to be fetched. With
  `archivesOnly` (check-nixpkgs --eval-only) every derivation is `null`:
  no .drv is evaluated or written, only the manifests are walked.

  # Inputs

  `argsFile`
  : The path (a string) of the JSON file above.

  # Type

  ```
  cli :: { argsFile :: string; } -> {
    manifests :: [ AttrSet ];
    index :: { drv :: string; out :: string; } | null;
  }
  ```

  # Examples
  :::{.example}
  ## `cli` usage example

  ```nix
  (import ./nix/cli.nix { argsFile = "/tmp/crff-args.json"; }).index
  => { drv = "/nix/store/…-all-index.drv"; out = "/nix/store/…-all-index"; }
  ```

  :::
*/
{ argsFile }:
let
  inherit (builtins)
    attrNames
    concatMap
    ;

  args = builtins.fromJSON (builtins.readFile argsFile);
  archivesOnly = args.archivesOnly or false;
  unpinned = args.unpinned or false;
  pipeline = import ./pipeline.nix {
    detectorProgram = /. + args.detectorProgram or (throw "cli.nix: no detectorProgram given");
    aggregateProgram = /. + args.aggregateProgram or (throw "cli.nix: no aggregateProgram given");
    system = if args.system or null == null then builtins.currentSystem else args.system;
  };

  # The aggregate of each manifest of the arguments.
  aggregates = map (
    m:
    pipeline.manifestFeatures {
      inherit (m) redistName version baseUrl;
      manifest = /. + m.manifest;
      unpackedHashes = m.unpackedHashes or null;
    }
  ) args.manifests;

  /**
    A derivation's .drv and output paths; `null` with `archivesOnly`, so
    that nothing forces the derivation.

    # Inputs

    `d`
    : A derivation.

    # Type

    ```
    pathsOf :: derivation -> { drv :: string; out :: string; } | null
    ```

    # Examples
    :::{.example}
    ## `pathsOf` usage example

    ```nix
    pathsOf index
    => { drv = "/nix/store/…-all-index.drv"; out = "/nix/store/…-all-index"; }
    ```

    :::
  */
  pathsOf =
    d:
    if archivesOnly then
      null
    else
      {
        drv = d.drvPath;
        out = d.outPath;
      };

  /**
    Every entry of a manifest's aggregate, flat: the archive as the walker
    gave it to the pipeline (package, platform, variant; its relative path
    and sha256 from the walker's record, `entry`) and the paths of its
    fetch, unpack and detect derivations.

    # Inputs

    `aggregate`
    : The manifest's `manifestFeatures` result.

    # Type

    ```
    entriesOf :: derivation -> [ {
      package :: string; platform :: string; variant :: string;
      relativePath :: string; sha256 :: string;
      fetch :: Paths | null; unpack :: Paths | null; detect :: Paths | null;
      pinnedNarHash :: string | null; unpinned :: Paths | null;
      unpinnedDetect :: Paths | null; pinnedName :: string;
    } ]
    ```

    # Examples
    :::{.example}
    ## `entriesOf` usage example

    ```nix
    entriesOf sampleFeatures
    => [ { package = "cuda_demo_rt"; platform = "linux-x86_64"; variant = "None";
           relativePath = "cuda_demo_rt/…-archive.tar.xz"; sha256 = "…";
           fetch = { … }; unpack = { … }; detect = { … }; } … ]
    ```

    :::
  */
  entriesOf =
    aggregate:
    let
      tree = aggregate.entries;
    in
    concatMap (
      package:
      concatMap (
        platform:
        map (
          variant:
          let
            d = tree.${package}.${platform}.${variant};
          in
          {
            inherit package platform variant;
            inherit (d.entry) relativePath sha256;
            fetch = pathsOf d.src;
            unpack = pathsOf d.unpacked;
            detect = pathsOf d.features;
            inherit (d) pinnedNarHash pinnedName;
            # Only when asked for: it is one more derivation per archive.
            unpinned = if unpinned && d.pinnedNarHash != null then pathsOf d.unpinned else null;
            unpinnedDetect =
              if unpinned && d.pinnedNarHash != null then pathsOf d.unpinnedFeatures else null;
          }
        ) (attrNames tree.${package}.${platform})
      ) (attrNames tree.${package})
    ) (attrNames tree);

  index =
    if args.index or null == null || archivesOnly then
      null
    else
      pipeline.mergeIndex {
        name = args.index;
        features = aggregates;
      };
in
{
  manifests = map (aggregate: {
    inherit (aggregate) version;
    aggregate = pathsOf aggregate;
    entries = entriesOf aggregate;
  }) aggregates;
  index = if index == null then null else pathsOf index;
}
