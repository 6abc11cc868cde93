/**
  A static builder program of the pipeline, built with nixpkgs'
  buildGoModule from exactly the files it compiles (the list
  cmd/<programName>/sources.txt, nix/listed-source.nix):

  - `cuda-redist-detector`: the builder of the unpack and detect
    derivations;
  - `cuda-redist-aggregate`: the builder of the aggregate, buildRedist and
    merged-index derivations.

  Nothing of a release is in it: no version in its name or linked in
  (`-X main.version` would change its bytes, and so every derivation it
  builds, at each release), `-trimpath` and `-buildid=` (buildGoModule
  sets both), `-s -w`. The same source and toolchain give the same store
  path; a new nixpkgs (flake.lock) brings a new Go, and rebuilds what it
  builds.

  # Inputs

  `buildGoModule`
  : From nixpkgs (callPackage passes it).

  `programName`
  : Which program: `cuda-redist-detector` or `cuda-redist-aggregate`.

  `root`
  : The repository's root directory (a path).

  # Type

  ```
  builderPackage :: {
    buildGoModule :: AttrSet -> Derivation; programName :: String; root :: Path;
  } -> Derivation
  ```

  # Examples
  :::{.example}
  ## `builderPackage` usage example

  ```nix
  pkgs.callPackage ./nix/builder-package.nix { programName = "cuda-redist-detector"; root = ./.; }
  => «derivation /nix/store/…-cuda-redist-detector-facts.drv»
  ```

  :::
*/
{
  buildGoModule,
  programName,
  root,
}:
let
  # Per program: a constant in place of the tool's version (see above),
  # and what it does.
  programs = {
    cuda-redist-detector = {
      version = "facts";
      description =
        "Unpack NVIDIA CUDA redistributables and record the facts of the unpacked trees";
    };
    cuda-redist-aggregate = {
      version = "rules";
      description = "Aggregate the facts of NVIDIA CUDA redistributables into feature documents";
    };
  };
  known = toString (builtins.attrNames programs);
  this =
    programs.${programName}
      or (throw "builder-package: no builder program ${programName} (${known})");
in
buildGoModule {
  pname = programName;
  inherit (this) version;
  src = import ./listed-source.nix programName root;
  vendorHash = null;
  subPackages = [ "cmd/${programName}" ];
  # Static: the derivations it builds have no dynamic loader.
  env.CGO_ENABLED = 0;
  ldflags = [
    "-s"
    "-w"
  ];
  # Its tests need the whole repository; CI runs them outside this build.
  doCheck = false;
  meta = {
    inherit (this) description;
    mainProgram = programName;
  };
}
