/**
  The static cuda-redist-detector: the builder of the pipeline's unpack
  and detect derivations, built with nixpkgs' buildGoModule from
  nix/detector-source.nix (exactly the files it compiles).

  Nothing of a release is in it: no version in its name or linked in
  (`-X main.version` would change its bytes, and so every per-archive
  derivation, at each release), `-trimpath` and `-buildid=` (buildGoModule
  sets both), `-s -w`. The same source and toolchain give the same store
  path; a new nixpkgs (flake.lock) brings a new Go, and re-detects.

  # Inputs

  `buildGoModule`
  : From nixpkgs (callPackage passes it).

  `src`
  : The detector's sources (nix/detector-source.nix).

  # Type

  ```
  detectorPackage :: { buildGoModule :: AttrSet -> Derivation; src :: Path; } -> Derivation
  ```

  # Examples
  :::{.example}
  ## `detectorPackage` usage example

  ```nix
  pkgs.callPackage ./nix/detector-package.nix { src = import ./nix/detector-source.nix ./.; }
  => «derivation /nix/store/…-cuda-redist-detector-facts.drv»
  ```

  :::
*/
{ buildGoModule, src }:
buildGoModule {
  pname = "cuda-redist-detector";
  # Not the tool's version (see above): a constant.
  version = "facts";
  inherit src;
  vendorHash = null;
  subPackages = [ "cmd/cuda-redist-detector" ];
  # Static: the sandboxed derivations it builds have no dynamic loader.
  env.CGO_ENABLED = 0;
  ldflags = [
    "-s"
    "-w"
  ];
  # Its tests need the whole repository; CI runs them outside this build.
  doCheck = false;
  meta = {
    description = "Unpack NVIDIA CUDA redistributables and record the facts of the unpacked trees";
    mainProgram = "cuda-redist-detector";
  };
}
