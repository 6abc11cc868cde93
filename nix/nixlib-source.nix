/**
  The Nix library as the package installs it: nix/*.nix and the
  lib/manifest/*.json files they read (keys.json, base-urls.json), with
  the repository's layout, so ../lib/manifest resolves the same way.

  # Inputs

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  nixlibSource :: path -> path
  ```

  # Examples
  :::{.example}
  ## `nixlibSource` usage example

  ```nix
  import ./nix/nixlib-source.nix ./.
  => /nix/store/…-cuda-redist-find-features-nix-lib
  ```

  :::
*/
import ./filtered-source.nix {
  name = "cuda-redist-find-features-nix-lib";
  keep =
    {
      rel,
      type,
      ...
    }:
    if type == "directory" then
      builtins.elem rel [
        "nix"
        "lib"
        "lib/manifest"
      ]
    else
      builtins.match "nix/[^/]*\\.nix" rel != null
      || builtins.match "lib/manifest/[^/]*\\.json" rel != null;
}
