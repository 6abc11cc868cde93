/**
  The whole repository as the Go unit tests see it: every package with its
  _test.go files and testdata, the pinned reference data (tests/testdata,
  manifests/), the goldens, the sample, docs/ and the README that
  tests compare against. Left out: version control, build results and the
  real-CUDA download cache (hundreds of MB, and those tests skip in the
  sandbox anyway). nix/source.nix is the binary's narrower set; this one is
  used only by the go-unit-tests check, so its hash changing rebuilds no
  detection.

  # Inputs

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  testSource :: path -> path
  ```

  # Examples
  :::{.example}
  ## `testSource` usage example

  ```nix
  import ./nix/test-source.nix ./.
  => /nix/store/…-cuda-redist-find-features-test-source
  ```

  :::
*/
import ./filtered-source.nix {
  name = "cuda-redist-find-features-test-source";
  keep =
    { base, ... }:
    !(builtins.elem base [
      ".git"
      ".cache"
    ])
    && builtins.match "result(-.*)?" base == null;
}
