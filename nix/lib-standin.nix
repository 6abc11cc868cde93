/**
  A small stand-in for nixpkgs' `lib`: the functions package files of
  Nixpkgs' cuda-modules use to compute their buildRedist arguments, built
  on builtins. check-nixpkgs evaluates those files with it, without nixpkgs.
  Anything missing fails the evaluation of that file with Nix's error.
*/
let
  inherit (builtins)
    concatLists
    concatMap
    concatStringsSep
    elem
    filter
    head
    isList
    length
    splitVersion
    ;
  compareVersions = builtins.compareVersions;
  optionals = cond: list: if cond then list else [ ];
  optional = cond: x: if cond then [ x ] else [ ];
  optionalString = cond: s: if cond then s else "";
  optionalAttrs = cond: as: if cond then as else { };
  versionAtLeast = v1: v2: compareVersions v1 v2 >= 0;
  versionOlder = v1: v2: compareVersions v2 v1 > 0;
  take = n: l: builtins.genList (i: builtins.elemAt l i) (if n < length l then n else length l);
  versions = {
    major = v: head (splitVersion v);
    minor = v: builtins.elemAt (splitVersion v) 1;
    majorMinor = v: concatStringsSep "." (take 2 (splitVersion v));
  };
  getOutput = output: pkg: pkg.${output} or pkg;
  lazy = name: throw "check-nixpkgs lib stand-in: lib.${name} is not available";
in
rec {
  inherit
    optionals
    optional
    optionalString
    optionalAttrs
    versionAtLeast
    versionOlder
    versions
    elem
    filter
    concatLists
    concatMap
    getOutput
    ;
  inherit (builtins) map attrNames attrValues hasAttr head tail length elemAt toString isList isAttrs isString;
  id = x: x;
  const = x: _: x;
  flatten = x: if isList x then concatMap flatten x else [ x ];
  unique = foldl' (acc: e: if elem e acc then acc else acc ++ [ e ]) [ ];
  foldl' = builtins.foldl';
  subtractLists = e: filter (x: !(elem x e));
  intersectLists = e: filter (x: elem x e);
  remove = e: filter (x: x != e);
  mapAttrs = builtins.mapAttrs;
  genAttrs = names: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) names);
  getDev = getOutput "dev";
  getLib = getOutput "lib";
  getBin = getOutput "bin";
  getInclude = getOutput "include";
  getStatic = getOutput "static";
  fix = f: let x = f x; in x;
  lists = { inherit optionals optional elem filter concatLists concatMap flatten unique subtractLists intersectLists remove; };
  strings = { inherit optionalString versionAtLeast versionOlder; hasPrefix = p: s: builtins.substring 0 (builtins.stringLength p) s == p; concatStringsSep = builtins.concatStringsSep; };
  attrsets = { inherit optionalAttrs genAttrs; mapAttrs = builtins.mapAttrs; };
  trivial = { inherit id const; };
  hasPrefix = strings.hasPrefix;
  concatStringsSep = builtins.concatStringsSep;
  # Used only in meta, which check-nixpkgs never forces.
  licenses = lazy "licenses";
  maintainers = lazy "maintainers";
  teams = lazy "teams";
  platforms = lazy "platforms";
}
