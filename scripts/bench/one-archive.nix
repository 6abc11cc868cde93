# The fetch, unpack and detect derivations of one archive, written out
# with no helper functions: what the pipeline builds per manifest entry
# (nix/pipeline.nix), as scripts/bench.sh times it end to end.
{
  detectorProgram, # path of the static cuda-redist-detector binary
  url, # file:// URL of the archive
  sha256, # its sha256 (base16)
  name, # its file name
  salt ? "", # changes every store path, for cold runs
}:
rec {
  src = derivation {
    name = "${salt}${name}";
    system = "builtin";
    builder = "builtin:fetchurl";
    inherit url;
    outputHashMode = "flat";
    outputHashAlgo = "sha256";
    outputHash = sha256;
  };
  unpacked = derivation {
    name = "${salt}unpacked";
    system = "x86_64-linux";
    builder = detectorProgram;
    args = [ "unpack" "${src}" (placeholder "out") ];
  };
  features = derivation {
    name = "${salt}features.json";
    system = "x86_64-linux";
    builder = "${detectorProgram}"; # structured attrs take no path
    __structuredAttrs = true;
    exportReferencesGraph.tree = [ unpacked ];
    args = [ "detect" "--nar-hash-from-nix" "--out" (placeholder "out") "${unpacked}" ];
  };
  # A derivation that does next to nothing (unpacks an empty tar): the
  # fixed cost of one sandboxed build.
  trivial = derivation {
    name = "${salt}trivial";
    system = "x86_64-linux";
    builder = detectorProgram;
    args = [ "unpack" ./empty.tar (placeholder "out") ];
  };
}
