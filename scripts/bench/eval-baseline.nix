# Minimal-work baseline for evaluating the pipeline: the same fetch,
# unpack and detect derivations for every archive of every bundled
# manifest, plus one derivation per manifest over its features, written
# with no helper functions and no checks. scripts/bench.sh compares the
# evaluation of nix/ (default.nix) with this.
{ detectorProgram, aggregateProgram, manifests ? ../../manifests }:
let
  inherit (builtins) attrNames concatMap filter match readDir readFile fromJSON isAttrs hasAttr;
  files = concatMap (
    r: map (f: { inherit r f; })
      (filter (f: match "redistrib_.*json" f != null) (attrNames (readDir (manifests + "/${r}"))))
  ) (attrNames (readDir manifests));
  leaves = m: concatMap (
    p: if !(isAttrs m.${p}) then [ ] else concatMap (
      pl: let v = m.${p}.${pl}; in
      if !(isAttrs v) then [ ]
      else if hasAttr "relative_path" v then [ v ]
      else map (k: v.${k})
        (filter (k: isAttrs v.${k} && hasAttr "relative_path" v.${k}) (attrNames v))
    ) (attrNames m.${p})
  ) (attrNames m);
  features = leaf:
    let
      src = derivation {
        name = "archive";
        system = "builtin";
        builder = "builtin:fetchurl";
        url = "https://example.invalid/${leaf.relative_path}";
        outputHashMode = "flat";
        outputHashAlgo = "sha256";
        outputHash = leaf.sha256;
      };
      unpacked = derivation {
        name = "unpacked";
        system = "x86_64-linux";
        builder = detectorProgram;
        args = [ "unpack" "${src}" (placeholder "out") ];
      };
    in
    derivation {
      name = "features.json";
      system = "x86_64-linux";
      builder = "${detectorProgram}"; # structured attrs take no path
      __structuredAttrs = true;
      exportReferencesGraph.tree = [ unpacked ];
      args = [ "detect" "--nar-hash-from-nix" "--out" (placeholder "out") "${unpacked}" ];
    };
  perManifest = file: derivation {
    name = "manifest-features";
    system = "x86_64-linux";
    builder = aggregateProgram;
    args = [ "aggregate" ]
      ++ map (l: "${features l}")
        (leaves (fromJSON (readFile (manifests + "/${file.r}/${file.f}"))));
  };
in
derivation {
  name = "index";
  system = "x86_64-linux";
  builder = aggregateProgram;
  args = [ "index" ] ++ map (f: "${perManifest f}") files;
}
