/**
  The static cuda-redist-aggregate: the builder of the pipeline's
  aggregate and merged-index derivations, built with nixpkgs'
  buildGoModule from nix/aggregate-source.nix (exactly the files it
  compiles).

  Nothing of a release is in it: no version in its name or linked in
  (`-X main.version` would change its bytes, and so every aggregate
  derivation, at each release), `-trimpath` and `-buildid=` (buildGoModule
  sets both), `-s -w`. The same source and toolchain give the same store
  path; a new nixpkgs (flake.lock) brings a new Go, and re-aggregates.

  # Inputs

  `buildGoModule`
  : From nixpkgs (callPackage passes it).

  `src`
  : The aggregate builder's sources (nix/aggregate-source.nix).

  # Type

  ```
  aggregatePackage :: { buildGoModule :: AttrSet -> Derivation; src :: Path; } -> Derivation
  ```

  # Examples
  :::{.example}
  ## `aggregatePackage` usage example

  ```nix
  pkgs.callPackage ./nix/aggregate-package.nix { src = import ./nix/aggregate-source.nix ./.; }
  => «derivation /nix/store/…-cuda-redist-aggregate-rules.drv»
  ```

  :::
*/
{ buildGoModule, src }:
buildGoModule {
  pname = "cuda-redist-aggregate";
  # Not the tool's version (see above): a constant.
  version = "rules";
  inherit src;
  vendorHash = null;
  subPackages = [ "cmd/cuda-redist-aggregate" ];
  # Static: the derivations it builds have no dynamic loader.
  env.CGO_ENABLED = 0;
  ldflags = [
    "-s"
    "-w"
  ];
  # Its tests need the whole repository; CI runs them outside this build.
  doCheck = false;
  meta = {
    description = "Aggregate the facts of NVIDIA CUDA redistributables into feature documents";
    mainProgram = "cuda-redist-aggregate";
  };
}
