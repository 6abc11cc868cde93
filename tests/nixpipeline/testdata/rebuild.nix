# TestRebuildsAfterEdit's instantiation: nix/cli.nix's (what a run of the
# CLI builds: unpack, detect, aggregate, index) and, for each manifest,
# every other derivation of its manifestFeatures result by attribute name
# (buildRedist, and any added later: the test wants a stage for each) and
# its release report (nix/report.nix, built by the CLI), with the same
# arguments.
{ argsFile }:
let
  args = builtins.fromJSON (builtins.readFile argsFile);
  pathOf = p: if p == null then null else /. + p;
  system = builtins.currentSystem;
  pipeline = import ../../../nix/pipeline.nix {
    detectorProgram = pathOf args.detectorProgram;
    aggregateProgram = pathOf args.aggregateProgram;
    inherit system;
  };
  isDerivation = v: builtins.isAttrs v && v.type or null == "derivation";
  # The derivations of a manifestFeatures result beside the aggregate
  # itself (its outputs) and the entries (nix/cli.nix lists those).
  others =
    m:
    let
      a = pipeline.manifestFeatures {
        inherit (m) redistName version baseUrl;
        manifest = pathOf m.manifest;
        unpackedHashes = m.unpackedHashes or null;
      };
      names = builtins.filter (
        n: !(builtins.elem n (a.outputs or [ "out" ] ++ [ "entries" ])) && isDerivation a.${n}
      ) (builtins.attrNames a);
      report = import ../../../nix/report.nix {
        cliProgram = pathOf args.cliProgram;
        inherit system;
        name = "${m.redistName}-${m.version}";
        features = [ a ];
      };
    in
    builtins.listToAttrs (
      map (n: {
        name = n;
        value = a.${n}.outPath;
      }) names
    )
    // {
      report = report.outPath;
    };
in
{
  cli = import ../../../nix/cli.nix { inherit argsFile; };
  others = map others args.manifests;
}
