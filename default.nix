/**
  Non-flake entry point: the Nix library, and the bundled feature
  attributes built with the programs you provide. No nixpkgs needed.

  # Inputs

  `detectorProgram`
  : The static cuda-redist-detector (a path), or a derivation with it in
    bin/: the builder of the unpack and detect derivations.

  `aggregateProgram`
  : The static cuda-redist-aggregate (a path), or a derivation with it in
    bin/: the builder of the aggregate, buildRedist and merged-index
    derivations.

  `cliProgram`
  : The static CLI, cuda-redist-find-features (a path), or a derivation
    with it in bin/: the builder of the reports alone (nix/report.nix);
    needed only to build a report.

  `system`
  : The system to build on (default: `builtins.currentSystem`).

  # Type

  ```
  default :: {
    detectorProgram :: path | derivation; aggregateProgram :: path | derivation;
    cliProgram :: path | derivation; system :: string;
  } -> {
    nixLib :: AttrSet; features :: AttrSet; pipeline :: AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `default.nix` usage example

  ```
  nix-build default.nix --arg detectorProgram /path/to/cuda-redist-detector \
    --arg aggregateProgram /path/to/cuda-redist-aggregate \
    -A features.sample.'"1.0.0"'
  ```

  :::
*/
{
  detectorProgram ?
    throw "pass the static detector: --arg detectorProgram /path/to/cuda-redist-detector",
  aggregateProgram ?
    throw "pass the aggregate builder: --arg aggregateProgram /path/to/cuda-redist-aggregate",
  cliProgram ?
    throw "a report is built by the CLI: --arg cliProgram /path/to/cuda-redist-find-features",
  system ? builtins.currentSystem,
}:
let
  nixLib = import ./nix;
in
{
  inherit nixLib;
  features = nixLib.bundled {
    inherit
      detectorProgram
      aggregateProgram
      cliProgram
      system
      ;
  };
  pipeline = nixLib.pipeline {
    inherit
      detectorProgram
      aggregateProgram
      system
      ;
  };
}
