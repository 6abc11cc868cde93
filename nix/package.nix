/**
  The static CLI, cuda-redist-find-features, built with nixpkgs'
  buildGoModule from the committed vendor/ tree (vendorHash = null; CI
  checks that vendor/ is current with `go mod vendor` and `git diff`).

  Written to the buildGoModule of nixos-25.11, the release flake.lock pins
  (pkgs/build-support/go/module.nix, a `lib.extendMkDerivation` over
  stdenv.mkDerivation): buildGoModule sets `env.CGO_ENABLED` itself from
  `args.env.CGO_ENABLED or go.CGO_ENABLED`, so the static build asks for
  `env.CGO_ENABLED = 0`; a top-level `CGO_ENABLED` (the argument of
  releases before 25.05) would reach the derivation too and be stdenv's
  "overlapping attributes" error. `ldflags` is a list (buildGoModule adds
  `-buildid=`), `subPackages` limits both build and check phase, and
  `doCheck` defaults to true.

  With `nixLib` (the library's source: nix/*.nix and lib/manifest/*.json)
  the package also installs the Nix library under
  share/cuda-redist-find-features/{nix,lib/manifest}, where the binary looks
  for it first (relative to its own executable), so process-manifests and
  check-nixpkgs work from any directory. Without it, the CLI alone:
  the flake's `packages.cli`, the builder of the reports and checks,
  whose hash depends on the Go sources only, so edits to the Nix files
  rebuild no report.

  # Inputs

  `lib`, `buildGoModule`
  : From nixpkgs (callPackage passes them; `lib` is Nixpkgs' `lib`).

  `src`
  : The Go sources (nix/source.nix).

  `version`
  : The version, also linked into the binary as `main.version`.

  `detector`
  : The cuda-redist-detector package (nix/builder-package.nix) to install
    beside the binary, where process-manifests and check-nixpkgs find it,
    or `null` (the default).

  `aggregate`
  : The cuda-redist-aggregate package (nix/builder-package.nix) to
    install beside the binary, or `null` (the default).

  `nixLib`
  : The Nix library's source (nix/nixlib-source.nix) to install beside the
    binary, or `null` (the default) for the binary alone.

  # Type

  ```
  package :: {
    lib :: AttrSet;
    buildGoModule :: AttrSet -> Derivation;
    src :: Path;
    version :: String;
    nixLib :: Path | Null;
    detector :: Derivation | Null;
    aggregate :: Derivation | Null;
  } -> Derivation
  ```

  # Examples
  :::{.example}
  ## `package` usage example

  ```nix
  pkgs.callPackage ./nix/package.nix {
    src = import ./nix/source.nix ./.;
    version = "0.1.0";
  }
  => «derivation /nix/store/…-cuda-redist-find-features-0.1.0.drv»
  ```

  :::
*/
{
  lib,
  buildGoModule,
  src,
  version,
  nixLib ? null,
  detector ? null,
  aggregate ? null,
}:
buildGoModule {
  pname = "cuda-redist-find-features";
  inherit src version;
  vendorHash = null;
  subPackages = [ "cmd/cuda-redist-find-features" ];
  # A static binary: it is the builder of sandboxed derivations, which have
  # no dynamic loader.
  env.CGO_ENABLED = 0;
  # The Nix library is not embedded (nix/doc.go): the pipeline builder's
  # hash stays that of the Go sources, and the package with nixLib
  # installs the library beside the binary instead.
  tags = [ "crff_noembed" ];
  ldflags = [
    "-s"
    "-w"
    "-X main.version=${version}"
  ];
  # The test suite needs Nix, gcc and objcopy; CI runs it outside this build.
  doCheck = false;
  postInstall =
    lib.optionalString (detector != null) ''
      ln -s ${detector}/bin/cuda-redist-detector $out/bin/cuda-redist-detector
    ''
    + lib.optionalString (aggregate != null) ''
      ln -s ${aggregate}/bin/cuda-redist-aggregate $out/bin/cuda-redist-aggregate
    ''
    + lib.optionalString (nixLib != null) ''
    share=$out/share/cuda-redist-find-features
    mkdir -p $share/nix $share/lib/manifest
    cp ${nixLib}/nix/*.nix $share/nix/
    cp ${nixLib}/lib/manifest/*.json $share/lib/manifest/
  '';
  meta = {
    description =
      "Find the features (outputs, GPU architectures, sonames, NAR hashes) "
      + "of NVIDIA CUDA redistributables";
    mainProgram = "cuda-redist-find-features";
  };
}
