# The names CUDA packages had before NVIDIA renamed them: each old name
# still gives the package, with a warning naming the new one.
{ lib }:
let
  mkRenamed =
    oldName:
    { path, package }:
    lib.warn "cudaPackages.${oldName} is deprecated, use ${path} instead" package;
in
final: _:
builtins.mapAttrs mkRenamed {
  # An empty set stays on two lines with this comment in it.
}
