/**
  Checks run by `nix flake check`: the pipeline over the bundled sample,
  compared with the golden files in tests/golden, and evaluation tests of
  the manifest walker. Every check is a sandboxed derivation whose builder
  is the detector binary itself: no stdenv, so they run offline.
*/
{
  detector,
  features,
  system,
  golden,
}:
let
  builder = "${detector}/bin/cuda-redist-find-features";

  # Succeeds when `actual` (a file or directory) equals `expected` byte for
  # byte; the log shows the first differences otherwise.
  sameAs =
    name: actual: expected:
    derivation {
      name = "check-${name}";
      inherit system builder;
      args = [
        "compare"
        "--touch"
        (placeholder "out")
        "${expected}"
        "${actual}"
      ];
    };

  evalTests = import ./tests.nix { inherit golden; };
  failures = builtins.filter (t: t.expr != t.expected) evalTests;
in
{
  sample-1_0_0 = sameAs "sample-1.0.0" features.sample."1.0.0" (golden + "/sample/1.0.0");
  sample-2_0_0 = sameAs "sample-2.0.0" features.sample."2.0.0" (golden + "/sample/2.0.0");
  sample-index = sameAs "sample-index" features.sample.index (golden + "/sample/index.json");
  eval =
    if failures == [ ] then
      sameAs "eval" (builtins.toFile "eval-tests" (builtins.toJSON (map (t: t.name) evalTests))) (
        builtins.toFile "eval-tests" (builtins.toJSON (map (t: t.name) evalTests))
      )
    else
      throw "nix eval tests failed: ${builtins.toJSON failures}";
}
