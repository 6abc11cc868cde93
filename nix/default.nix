/**
  The Nix library of cuda-redist-find-features. It needs no nixpkgs.

  - `manifest.entries`: the archives of a manifest (pure evaluation).
  - `pipeline { detector, system }`: the fetch, unpack, detect, aggregate
    and index derivations.
  - `bundled { detector, system }`: feature attributes of the bundled
    manifests and the sample.

  # Type

  ```
  lib :: {
    manifest :: { keys :: AttrSet; entries :: AttrSet -> [ Entry ]; };
    pipeline :: { detector :: path | derivation; system :: string; } -> AttrSet;
    bundled :: { detector :: path | derivation; system :: string; } -> AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `lib.bundled` usage example

  ```nix
  (import ./nix).bundled { detector = ./crff; system = "x86_64-linux"; }
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
    : The pipeline's inputs: `{ detector, system }`.

    # Type

    ```
    bundled :: { detector :: path | derivation; system :: string; } -> AttrSet
    ```
  */
  bundled = args: import ./bundled.nix { pipeline = import ./pipeline.nix args; };
}
