/**
  The Go sources of the binary, and nothing else: edits to Nix files,
  docs or the sample do not change the binary's hash, so they do not
  re-run every detection. Of nix/ only its Go files (package nixlib):
  nix/package.nix builds with the crff_noembed tag, which leaves the
  embedded *.nix out.

  # Inputs

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  source :: path -> path
  ```

  # Examples
  :::{.example}
  ## `source` usage example

  ```nix
  import ./nix/source.nix ./.
  => /nix/store/…-cuda-redist-find-features-source
  ```

  :::
*/
import ./filtered-source.nix {
  name = "cuda-redist-find-features-source";
  keep =
    {
      rel,
      base,
      type,
    }:
    let
      topDir = builtins.head (builtins.split "/" rel);
      isTest = builtins.match ".*_test\\.go" base != null;
    in
    if type == "directory" then
      builtins.elem topDir [
        "cmd"
        "detector"
        "lib"
        "nix"
        "vendor"
      ]
      && !(builtins.elem base [ "testdata" ])
    else
      builtins.elem rel [
        "go.mod"
        "go.sum"
      ]
      || (topDir == "vendor")
      || (builtins.match ".*\\.go" base != null && !isTest)
      # Go assembly (CRC-64 and the /usr/ search on amd64).
      || (builtins.match ".*\\.s" base != null)
      || rel == "lib/manifest/keys.json"
      || rel == "lib/manifest/base-urls.json"
      # The default soname index lib/sonameindex embeds.
      || rel == "lib/sonameindex/debian-bookworm-main.sonames";
}
