# The subset of nixpkgs' buildGoModule our package uses, with `go` itself
# as the builder: `go -C <src> build -mod=vendor` in the sandbox. Like the
# real one with vendorHash = null, it builds from the committed vendor/
# tree and fails if that tree does not match go.mod.
{ system, go }:
{
  pname,
  version,
  src,
  vendorHash,
  subPackages,
  ldflags ? [ ],
  env ? { },
  ...
}:
assert vendorHash == null;
derivation {
  name = "${pname}-${version}";
  inherit system;
  builder = "${go}/bin/go";
  args = [
    "-C"
    "${src}"
    "build"
    "-mod=vendor"
    "-trimpath"
    "-ldflags=${builtins.concatStringsSep " " ldflags}"
    "-o"
    "${placeholder "out"}/bin/"
  ] ++ map (p: "./${p}") subPackages;
  CGO_ENABLED = env.CGO_ENABLED or "0";
  # The sandbox's build directory: Go needs a writable cache and home.
  GOCACHE = "/build/go-cache";
  GOPATH = "/build/go";
  HOME = "/build";
  GOTOOLCHAIN = "local";
  GOFLAGS = "";
  GOPROXY = "off";
}
