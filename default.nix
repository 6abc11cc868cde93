/**
  Non-flake entry point: the same library, and the bundled feature
  attributes built with a binary you provide. No nixpkgs needed.

  # Inputs

  `program`
  : The static binary (a path), or a derivation with it in bin/.

  `detector`
  : The old name of `program`, still taken with a warning.

  `detectorProgram`
  : The static cuda-redist-detector (a path), or a derivation with it in
    bin/: the builder of the unpack and detect derivations (default
    `null`: `program`).

  `aggregateProgram`
  : The static cuda-redist-aggregate (a path), or a derivation with it in
    bin/: the builder of the aggregate, buildRedist and merged-index
    derivations (default `null`: `program`).

  `system`
  : The system to build on (default: `builtins.currentSystem`).

  # Type

  ```
  default :: {
    program :: path | derivation; detectorProgram :: path | derivation | null;
    aggregateProgram :: path | derivation | null; system :: string;
  } -> {
    lib :: AttrSet; features :: AttrSet; pipeline :: AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `default.nix` usage example

  ```
  nix-build default.nix --arg program /path/to/cuda-redist-find-features \
    --arg detectorProgram /path/to/cuda-redist-detector \
    --arg aggregateProgram /path/to/cuda-redist-aggregate \
    -A features.sample.'"1.0.0"'
  ```

  :::
*/
{
  program ?
    if detector != null then
      builtins.trace "cuda-redist-find-features: --arg detector is now --arg program" detector
    else
      throw "pass the static binary: --arg program /path/to/cuda-redist-find-features",
  # The old name of program, still taken (with a warning).
  detector ? null,
  detectorProgram ? null,
  aggregateProgram ? null,
  system ? builtins.currentSystem,
}:
let
  lib = import ./nix;
in
{
  inherit lib;
  features = lib.bundled {
    inherit
      program
      detectorProgram
      aggregateProgram
      system
      ;
  };
  pipeline = lib.pipeline {
    inherit
      program
      detectorProgram
      aggregateProgram
      system
      ;
  };
}
