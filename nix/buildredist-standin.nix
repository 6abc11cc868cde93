/**
  Evaluates Nixpkgs' cuda-modules package files (`packages/<pname>.nix`,
  each a function calling `buildRedist`) with a stand-in `buildRedist`
  that returns its arguments, for each platform and CUDA version asked
  for. No nixpkgs is needed: the other arguments are stand-ins too, and
  one a file uses but the stand-in lacks fails that file's case alone.

  # Type

  ```
  evalPackages :: { dir :: Path, cases :: [ { platform, cudaVersion } ] }
               -> { <file> = [ { platform, cudaVersion, ok, pname?, redistName?, outputs?, includeRemoveStubsFromRunpathHook?, allowFHSReferences? } ]; }
  ```
*/
{ dir, cases }:
let
  lib = import ./lib-standin.nix;
  inherit (builtins)
    attrNames
    filter
    functionArgs
    isFunction
    listToAttrs
    mapAttrs
    match
    readDir
    tryEval
    deepSeq
    ;

  files = filter (f: match ".*\\.nix" f != null && (readDir dir).${f} == "regular") (attrNames (readDir dir));

  # buildRedist's own argument handling: a set, or a function of the final set.
  buildRedist = arg: let final = if isFunction arg then arg final else arg; in final;

  provided =
    case:
    let
      hostPlatform = {
        system = if case.platform == "linux-x86_64" then "x86_64-linux" else "aarch64-linux";
        isx86_64 = case.platform == "linux-x86_64";
        isAarch64 = case.platform != "linux-x86_64";
        isLinux = true;
        isDarwin = false;
      };
      cudaMajorVersion = lib.versions.major case.cudaVersion;
    in
    {
      inherit lib buildRedist cudaMajorVersion;
      inherit (case) cudaVersion;
      cudaMajorMinorVersion = lib.versions.majorMinor case.cudaVersion;
      cudaAtLeast = lib.versionAtLeast case.cudaVersion;
      cudaOlder = lib.versionOlder case.cudaVersion;
      backendStdenv = {
        hostRedistSystem = case.platform;
        inherit hostPlatform;
        cudaMajorVersion = cudaMajorVersion;
      };
      stdenv = { inherit hostPlatform; };
    };

  evalCase =
    file: case:
    let
      fn = import (dir + "/${file}");
      given = provided case;
      args = mapAttrs (
        name: _:
        given.${name} or (throw "check-nixpkgs stand-in: ${file} uses `${name}`, which the stand-in does not provide")
      ) (functionArgs fn);
      r = fn args;
      result = {
        ok = true;
        inherit (case) platform cudaVersion;
        pname = r.pname or null;
        redistName = r.redistName or null;
        outputs = r.outputs or [ "out" ];
        includeRemoveStubsFromRunpathHook = r.includeRemoveStubsFromRunpathHook or null;
        allowFHSReferences = r.allowFHSReferences or false;
      };
      tried = tryEval (deepSeq result result);
    in
    if tried.success then
      tried.value
    else
      {
        ok = false;
        inherit (case) platform cudaVersion;
      };
in
listToAttrs (map (file: { name = file; value = map (evalCase file) cases; }) files)
