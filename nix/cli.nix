/**
  The entry point of the CLI (`process-manifests`, `check-nixpkgs`): one
  instantiation of the pipeline over the manifests of a run.

  Everything the CLI knows arrives as data: `argsFile` is the path of a
  JSON file read with `builtins.fromJSON`, never Nix source assembled by
  the CLI, so a directory named `${builtins.trace "x" ""}` stays a name.

  The JSON:

  ```
  {
    "detector": "/abs/path/of/the/static/binary",
    "system": "x86_64-linux" | null,            (null: builtins.currentSystem)
    "manifests": [ { "redistName", "version", "manifest": "/abs/path", "baseUrl" } ],
    "index": "name" | null                        (also merge the manifests' indexes)
  }
  ```

  The result (for `nix-instantiate --eval --strict --json --read-write-mode`,
  which writes the .drv files while evaluating their paths, so one
  evaluation is enough to build with `nix-store --realise`):

  ```
  {
    manifests = [
      { version, drv, out, entries = [ { package, platform, variant, src, drv, out } ] }
    ];
    index = { drv, out } | null;
  }
  ```

  `src` is the fetch's output path: the CLI puts local (file://) archives
  there with `nix-store --add-fixed`, so nothing has to be fetched.

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
  args = builtins.fromJSON (builtins.readFile argsFile);
  pipeline = import ./pipeline.nix {
    detector = /. + args.detector;
    system = if args.system or null == null then builtins.currentSystem else args.system;
  };

  aggregates = map (
    m:
    pipeline.manifestFeatures {
      inherit (m) redistName version baseUrl;
      manifest = /. + m.manifest;
    }
  ) args.manifests;

  /**
    Every entry of an aggregate, flat: package, platform, variant, and the
    fetch's output path, the detection's .drv and output paths.

    # Inputs

    `agg`
    : A `manifestFeatures` result.

    # Type

    ```
    entriesOf :: derivation -> [ {
      package :: string; platform :: string; variant :: string;
      src :: string; drv :: string; out :: string;
    } ]
    ```
  */
  entriesOf =
    agg:
    builtins.concatMap (
      package:
      builtins.concatMap (
        platform:
        map (
          variant:
          let
            d = agg.entries.${package}.${platform}.${variant};
          in
          {
            inherit package platform variant;
            src = d.src.outPath;
            drv = d.features.drvPath;
            out = d.features.outPath;
          }
        ) (builtins.attrNames agg.entries.${package}.${platform})
      ) (builtins.attrNames agg.entries.${package})
    ) (builtins.attrNames agg.entries);

  index =
    if args.index or null == null then
      null
    else
      pipeline.mergeIndex {
        name = args.index;
        features = aggregates;
      };
in
{
  manifests = map (
    agg:
    {
      inherit (agg) version;
      drv = agg.drvPath;
      out = agg.outPath;
      entries = entriesOf agg;
    }
  ) aggregates;
  index =
    if index == null then
      null
    else
      {
        drv = index.drvPath;
        out = index.outPath;
      };
}
