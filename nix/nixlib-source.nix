/**
  The Nix library as the package installs it: nix/*.nix and the files
  outside nix/ they read, which nix/library-files.txt lists
  (lib/manifest/keys.json, lib/manifest/base-urls.json), with the
  repository's layout, so ../lib/manifest resolves the same way.

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
let
  # The listed files, and the directories that hold them.
  outside = builtins.filter (l: builtins.isString l && l != "") (
    builtins.split "\n" (builtins.readFile ./library-files.txt)
  );
  parents =
    p:
    let
      d = dirOf p;
    in
    if d == "." then [ ] else [ d ] ++ parents d;
  dirs = [ "nix" ] ++ builtins.concatMap parents outside;
in
import ./filtered-source.nix {
  name = "cuda-redist-find-features-nix-lib";
  keep =
    {
      rel,
      type,
      ...
    }:
    if type == "directory" then
      builtins.elem rel dirs
    else
      builtins.match "nix/[^/]*\\.nix" rel != null || builtins.elem rel outside;
}
