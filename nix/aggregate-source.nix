/**
  The sources of cuda-redist-aggregate, exactly: the files
  cmd/cuda-redist-aggregate/sources.txt lists (its packages' Go and
  assembly files, those of the vendored packages it imports, go.mod,
  go.sum and vendor/modules.txt), which tests/layout holds to what
  `go list -deps` says it compiles on every target of the flake.

  An edit to any other file (the CLI, reports, checks, --fix, printing,
  the detector, the Nix files, another vendored module) leaves this
  source, the aggregate builder built from it, and so every aggregate
  derivation, as they are (nix/listed-source.nix).

  # Inputs

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  aggregateSource :: path -> path
  ```

  # Examples
  :::{.example}
  ## `aggregateSource` usage example

  ```nix
  import ./nix/aggregate-source.nix ./.
  => /nix/store/…-cuda-redist-aggregate-source
  ```

  :::
*/
import ./listed-source.nix "cuda-redist-aggregate"
