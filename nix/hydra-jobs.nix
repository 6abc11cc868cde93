/**
  The flake's `hydraJobs`: the package per system, the flake's checks, and
  the features of the bundled manifests laid out for Hydra. Per manifest
  version there is the aggregate (its buildRedist.json and report) and one
  job per archive, so one bad archive fails alone.

  # Inputs

  `systems`
  : The systems to make jobs for, e.g. `[ "x86_64-linux" "aarch64-linux" ]`.

  `packageFor`
  : The package of a system: `system -> derivation`.

  `checks`
  : The flake's `checks` (`{ <system> = { <name> = derivation; }; }`), passed through.

  `featuresFor`
  : The feature attributes of the bundled manifests for a system, as
    `lib.bundled` makes them: `system -> { <redist> = { <version> = ...; index; }; index; }`.

  # Type

  ```
  hydraJobs :: {
    systems :: [ String ];
    packageFor :: String -> Derivation;
    checks :: AttrsOf (AttrsOf Derivation);
    featuresFor :: String -> AttrSet;
  } -> { package :: AttrsOf Derivation; checks :: AttrSet; features :: AttrSet; }
  ```

  # Examples
  :::{.example}
  ## `hydraJobs` usage example

  ```nix
  (import ./nix/hydra-jobs.nix {
    systems = [ "x86_64-linux" ];
    packageFor = system: self.packages.${system}.default;
    inherit (self) checks;
    featuresFor =
      system: nixLib.bundled { inherit detectorProgram aggregateProgram cliProgram system; };
  }).features.x86_64-linux.sample."1.0.0".entries.cuda_demo_rt.linux-x86_64.None
  => «derivation …-features.json.drv»
  ```

  :::
*/
{
  systems,
  packageFor,
  checks,
  featuresFor,
}:
let
  /**
    An attribute per system of `systems`, its value `f system`.

    # Type

    ```
    forAllSystems :: (string -> a) -> attrsOf a
    ```
  */
  forAllSystems =
    f:
    builtins.listToAttrs (
      map (system: {
        name = system;
        value = f system;
      }) systems
    );

  /**
    The jobs of one manifest version: `aggregate`, `buildRedist` and
    `report`, and per package, platform and variant the archive's features.
    A package named like one of those three would hide a job: an error.

    # Inputs

    `agg`
    : One version of `featuresFor system`'s redist (the aggregate derivation
      with its `buildRedist`, `report` and `entries`).

    # Type

    ```
    perVersion :: Derivation -> AttrSet
    ```
  */
  perVersion =
    agg:
    {
      aggregate = agg;
      inherit (agg) buildRedist report;
    }
    // builtins.mapAttrs (
      package: platforms:
      if package == "aggregate" || package == "buildRedist" || package == "report" then
        throw "hydraJobs: a package named ${package} hides a job"
      else
        builtins.mapAttrs (_: variants: builtins.mapAttrs (_: d: d.features) variants) platforms
    ) agg.entries;

  /**
    `featuresFor system` with each manifest version replaced by its jobs;
    the indexes and per-redist reports stay as they are.

    # Inputs

    `system`
    : The system, e.g. `"x86_64-linux"`.

    # Type

    ```
    hydraFeaturesFor :: String -> AttrSet
    ```
  */
  hydraFeaturesFor =
    system:
    builtins.mapAttrs (
      redist: versions:
      if redist == "index" then
        versions
      else
        builtins.mapAttrs (v: x: if v == "index" || v == "report" then x else perVersion x) versions
    ) (featuresFor system);
in
{
  package = forAllSystems packageFor;
  inherit checks;
  features = forAllSystems hydraFeaturesFor;
}
