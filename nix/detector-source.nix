/**
  The sources of cuda-redist-detector, exactly: the files
  cmd/cuda-redist-detector/sources.txt lists (its packages' Go and
  assembly files, those of the vendored packages it imports, go.mod,
  go.sum and vendor/modules.txt), which tests/layout holds to what
  `go list -deps` says it compiles on every target of the flake.

  An edit to any other file (the CLI, reports, checks, the aggregate,
  the buildRedist rules, the Nix files, another vendored module) leaves
  this source, the detector built from it, and so every unpack and
  detect derivation, as they are (nix/listed-source.nix).

  # Inputs

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  detectorSource :: path -> path
  ```

  # Examples
  :::{.example}
  ## `detectorSource` usage example

  ```nix
  import ./nix/detector-source.nix ./.
  => /nix/store/…-cuda-redist-detector-source
  ```

  :::
*/
import ./listed-source.nix "cuda-redist-detector"
