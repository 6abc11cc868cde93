/**
  The Nix library of cuda-redist-find-features. It needs no nixpkgs.

  - `manifest.entries`: the archives of a manifest (pure evaluation).
  - `pipeline { detector, system }`: the fetch, unpack, detect, aggregate
    and index derivations.
  - `bundled { detector, system }`: feature attributes of the bundled
    manifests and the sample.
*/
{
  manifest = import ./manifest.nix;
  pipeline = import ./pipeline.nix;
  bundled = args: import ./bundled.nix { pipeline = import ./pipeline.nix args; };
}
