/**
  The Go unit tests as a build: buildGoModule over the whole source
  (nix/test-source.nix) with doCheck, so `nix flake check` runs every
  package's tests. Tests that need what the sandbox lacks (Nix, Chromium,
  real CUDA binaries, the network) skip with their reason, since
  CRFF_REQUIRE_ALL and CRFF_REQUIRE_* are unset here; scripts/test.sh runs
  them outside. No subPackages: then the check phase tests every directory
  holding a _test.go file.

  # Inputs

  `buildGoModule`
  : From nixpkgs (callPackage passes it).

  `src`
  : The whole repository as the tests see it (nix/test-source.nix).

  `version`
  : The version (names the derivation).

  # Type

  ```
  goUnitTests :: {
    buildGoModule :: AttrSet -> Derivation;
    src :: Path;
    version :: String;
  } -> Derivation
  ```
*/
{
  buildGoModule,
  src,
  version,
}:
buildGoModule {
  pname = "cuda-redist-find-features-go-unit-tests";
  inherit src version;
  vendorHash = null;
  env.CGO_ENABLED = 0;
  doCheck = true;
  # The binaries are a by-product: the result is that the tests passed.
  postInstall = ''
    mkdir -p $out
    echo passed > $out/go-unit-tests
  '';
}
