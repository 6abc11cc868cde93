/**
  The static cuda-redist-find-features binary, built with nixpkgs'
  buildGoModule from the committed vendor/ tree (vendorHash = null; CI
  checks that vendor/ is current with `go mod vendor` and `git diff`).

  Written to the buildGoModule of nixos-24.11 (pkgs/build-support/go/module.nix):
  `CGO_ENABLED` is an argument of buildGoModule, which passes it to the
  derivation itself; setting `env.CGO_ENABLED` as well is stdenv's
  "overlapping attributes" evaluation error there. (Later releases move
  it to `env`; this file follows the release flake.lock pins.)

  With `nixLib` (the library's source: nix/*.nix and lib/manifest/*.json)
  the package also installs the Nix library under
  share/cuda-redist-find-features/{nix,lib/manifest}, where the binary looks
  for it first (relative to its own executable), so process-manifests and
  check-nixpkgs work from any directory. Without it, the binary alone:
  the flake's pipeline builder (`packages.detector`), whose hash depends on
  the Go sources only, so edits to the Nix files rebuild no detection.
*/
{
  lib,
  buildGoModule,
  src,
  version,
  nixLib ? null,
}:
buildGoModule {
  pname = "cuda-redist-find-features";
  inherit src version;
  vendorHash = null;
  subPackages = [ "cmd/cuda-redist-find-features" ];
  # A static binary: it is the builder of sandboxed derivations, which have
  # no dynamic loader.
  CGO_ENABLED = 0;
  ldflags = [
    "-s"
    "-w"
    "-X main.version=${version}"
  ];
  # The test suite needs Nix, gcc and objcopy; CI runs it outside this build.
  doCheck = false;
  postInstall = lib.optionalString (nixLib != null) ''
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
