/**
  The Nix library of cuda-redist-find-features. It needs no nixpkgs.

  - `manifest.entries`: the archives of a manifest (pure evaluation).
  - `pipeline { detectorProgram, aggregateProgram, system }`: the fetch,
    unpack, detect, aggregate and index derivations, built by the detector
    and the aggregate builder.
  - `bundled { detectorProgram, aggregateProgram, cliProgram, system }`:
    feature attributes of the bundled manifests and the sample, and their
    reports (built by the CLI).

  # Type

  ```
  nixLib :: {
    manifest :: { keys :: AttrSet; entries :: AttrSet -> [ Entry ]; };
    pipeline :: {
      detectorProgram :: path | derivation; aggregateProgram :: path | derivation;
      system :: string;
    } -> AttrSet;
    bundled :: {
      detectorProgram :: path | derivation; aggregateProgram :: path | derivation;
      cliProgram :: path | derivation; system :: string;
    } -> AttrSet;
  }
  ```

  # Examples
  :::{.example}
  ## `nixLib.bundled` usage example

  ```nix
  (import ./nix).bundled {
    detectorProgram = ./crff-detector;
    aggregateProgram = ./crff-aggregate;
    cliProgram = ./crff;
    system = "x86_64-linux";
  }
  => { cuda = { ... }; cudnn = { ... }; sample = { ... }; index = «derivation»; ... }
  ```

  :::
*/
{
  manifest = import ./manifest.nix;
  pipeline = import ./pipeline.nix;
  /**
    nix/bundled.nix over the pipeline of `args`, its reports built by
    `args.cliProgram`.

    # Inputs

    `args`
    : `{ detectorProgram, aggregateProgram, cliProgram, system }`.

    # Type

    ```
    bundled :: {
      detectorProgram :: path | derivation; aggregateProgram :: path | derivation;
      cliProgram :: path | derivation; system :: string;
    } -> AttrSet
    ```
  */
  bundled =
    {
      detectorProgram,
      aggregateProgram,
      cliProgram,
      system,
    }:
    import ./bundled.nix {
      pipeline = import ./pipeline.nix { inherit detectorProgram aggregateProgram system; };
      inherit cliProgram system;
    };
}
