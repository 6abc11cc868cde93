/**
  Non-flake entry point: the same library, and the bundled feature
  attributes built with a detector binary you provide. No nixpkgs needed.

  # Inputs

  `detector`
  : The static detector binary (a path), or a derivation with it in bin/.

  `system`
  : The system to build on (default: `builtins.currentSystem`).

  # Type

  ```
  default :: { detector :: path | derivation; system :: string; } -> {
    lib :: AttrSet; features :: AttrSet; pipeline :: AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `default.nix` usage example

  ```
  nix-build default.nix --arg detector /path/to/cuda-redist-find-features \
    -A features.sample.'"1.0.0"'
  ```

  :::
*/
{
  detector ?
    throw "pass the static detector binary: --arg detector /path/to/cuda-redist-find-features",
  system ? builtins.currentSystem,
}:
let
  lib = import ./nix;
in
{
  inherit lib;
  features = lib.bundled { inherit detector system; };
  pipeline = lib.pipeline { inherit detector system; };
}
