/**
  The sources of one of the pipeline's builder programs, exactly: the
  files cmd/<programName>/sources.txt lists (its packages' Go and assembly
  files, those of the vendored packages it imports, go.mod, go.sum and
  vendor/modules.txt), which tests/layout holds to what `go list -deps`
  says it compiles on every target of the flake (nix/builder-package.nix
  builds the program from it).

  An edit to any other file (the CLI, reports, checks, --fix, printing,
  the other builder program, the Nix files, another vendored module)
  leaves this source, the program built from it, and so every derivation
  it builds, as they are.

  A filter over `builtins.path` rather than nixpkgs' `lib.fileset`: the
  same exact set of files, and usable from default.nix without nixpkgs.

  # Inputs

  `programName`
  : The program's name (cmd/<programName>).

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  listedSource :: string -> path -> path
  ```

  # Examples
  :::{.example}
  ## `listedSource` usage example

  ```nix
  import ./nix/listed-source.nix "cuda-redist-aggregate" ./.
  => /nix/store/…-cuda-redist-aggregate-source
  ```

  :::
*/
programName: root:
let
  listed = builtins.filter (l: builtins.isString l && l != "") (
    builtins.split "\n" (builtins.readFile (root + "/cmd/${programName}/sources.txt"))
  );
  files = builtins.listToAttrs (
    map (f: {
      name = f;
      value = true;
    }) listed
  );
  # Every directory on the way to a listed file.
  dirsOf =
    f:
    let
      parts = builtins.filter builtins.isString (builtins.split "/" f);
      n = builtins.length parts;
    in
    builtins.genList (
      i: builtins.concatStringsSep "/" (builtins.genList (j: builtins.elemAt parts j) (i + 1))
    ) (n - 1);
  dirs = builtins.listToAttrs (
    map (d: {
      name = d;
      value = true;
    }) (builtins.concatMap dirsOf listed)
  );
in
import ./filtered-source.nix {
  name = "${programName}-source";
  keep = { rel, type, ... }: if type == "directory" then dirs ? ${rel} else files ? ${rel};
} root
