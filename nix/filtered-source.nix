/**
  A copy of the repository into the store that keeps only what `keep`
  accepts: the one way the flake's source sets (nix/source.nix,
  nix/nixlib-source.nix, nix/test-source.nix, nix/listed-source.nix) are
  cut, so each says only what it keeps.

  # Inputs

  `name`
  : The store path's name.

  `keep`
  : Whether to keep one file or directory, given `{ rel, base, type }`:
    its path relative to `root`, its base name and its type as
    `builtins.path` gives it ("directory", "regular", "symlink", ...).

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  filteredSource :: { name :: string; keep :: attrs -> bool; } -> path -> path
  ```

  # Examples
  :::{.example}
  ## `filteredSource` usage example

  ```nix
  import ./nix/filtered-source.nix {
    name = "docs";
    keep = { rel, type, ... }: type == "directory" || builtins.match "docs/.*" rel != null;
  } ./.
  => /nix/store/…-docs
  ```

  :::
*/
{ name, keep }:
root:
builtins.path {
  path = root;
  inherit name;
  filter =
    path: type:
    keep {
      rel = builtins.substring (builtins.stringLength (toString root) + 1) (-1) (toString path);
      base = baseNameOf path;
      inherit type;
    };
}
