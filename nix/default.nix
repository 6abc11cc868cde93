/**
  The Nix library of cuda-redist-find-features. It needs no nixpkgs.

  - `manifest.entries`: the archives of a manifest (pure evaluation).
  - `pipeline { program, detectorProgram ? null, system }`: the fetch, unpack, detect, aggregate
    and index derivations.
  - `bundled { program, detectorProgram ? null, system }`: feature attributes of the bundled
    manifests and the sample.

  # Type

  ```
  lib :: {
    manifest :: { keys :: AttrSet; entries :: AttrSet -> [ Entry ]; };
    pipeline :: {
      program :: path | derivation; detectorProgram :: path | derivation | null; system :: string;
    } -> AttrSet;
    bundled :: {
      program :: path | derivation; detectorProgram :: path | derivation | null; system :: string;
    } -> AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `lib.bundled` usage example

  ```nix
  (import ./nix).bundled { program = ./crff; system = "x86_64-linux"; }
  => { cuda = { ... }; cudnn = { ... }; sample = { ... }; index = «derivation»; ... }
  ```

  :::
*/
{
  manifest = import ./manifest.nix;
  pipeline = import ./pipeline.nix;
  /**
    nix/bundled.nix over the pipeline of `args`.

    # Inputs

    `args`
    : The pipeline's inputs: `{ program, detectorProgram ? null, system }`.

    # Type

    ```
    bundled :: {
      program :: path | derivation; detectorProgram :: path | derivation | null; system :: string;
    } -> AttrSet
    ```
  */
  bundled = args: import ./bundled.nix { pipeline = import ./pipeline.nix args; };
}
