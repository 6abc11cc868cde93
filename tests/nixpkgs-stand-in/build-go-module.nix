# The subset of nixpkgs' buildGoModule (as of nixos-24.11,
# pkgs/build-support/go/module.nix) our package uses, enforcing the same
# contract where ours could get it wrong:
#
# - `vendorHash = null`: build from the committed vendor/ (-mod=vendor);
# - `CGO_ENABLED` is an argument that buildGoModule itself passes to the
#   derivation (default: the toolchain's), so an `env` attribute of a name
#   the derivation already has (CGO_ENABLED, GOFLAGS, ...) is the error
#   stdenv.mkDerivation raises for overlapping attributes;
# - the build runs in $NIX_BUILD_TOP/$TMPDIR (never a fixed /build: Nix's
#   sandbox may be off, Debian's default), GOCACHE and GOPATH under it;
# - `go install` of each subPackage, the binaries in $out/bin, then
#   `postInstall` in a POSIX shell (a static busybox sh stands in for bash).
{
  system,
  go,
  busybox,
}:
{
  pname,
  version,
  src,
  vendorHash ? throw "buildGoModule: vendorHash is missing",
  subPackages ? [ ],
  ldflags ? [ ],
  CGO_ENABLED ? 1,
  env ? { },
  postInstall ? "",
  doCheck ? true,
  meta ? { },
  ...
}@args:
let
  inherit (builtins)
    attrNames
    concatStringsSep
    filter
    hasAttr
    ;
  derivationArgs = {
    name = "${pname}-${version}";
    inherit system src CGO_ENABLED postInstall;
    builder = "${busybox}/bin/sh";
    GO111MODULE = "on";
    GOTOOLCHAIN = "local";
    GOFLAGS = "-mod=vendor -trimpath";
    ldflags = concatStringsSep " " (ldflags ++ [ "-buildid=" ]);
    subPackages = concatStringsSep " " subPackages;
  };
  overlapping = filter (n: hasAttr n derivationArgs) (attrNames env);
  script = ''
    set -eu
    bb=${busybox}/bin/busybox
    export PATH="$TMPDIR/bin:${go}/bin"
    $bb mkdir -p "$TMPDIR/bin"
    $bb --install -s "$TMPDIR/bin"
    export GOCACHE="$TMPDIR/go-cache" GOPATH="$TMPDIR/go" HOME="$TMPDIR"
    export GOPROXY=off GOSUMDB=off
    cd "$src"
    for p in $subPackages; do
      echo "Building subPackage ./$p"
      go install -ldflags="$ldflags" "./$p"
    done
    mkdir -p "$out"
    cp -r "$GOPATH/bin" "$out/"
    eval "$postInstall"
  '';
in
assert vendorHash == null;
if !(builtins.elem (toString CGO_ENABLED) [ "0" "1" ]) then
  throw "buildGoModule: CGO_ENABLED must be 0 or 1"
else if overlapping != [ ] then
  throw (
    "The `env` attribute set cannot contain any attributes passed to derivation. "
    + "The following attributes are overlapping: ${concatStringsSep ", " overlapping}"
  )
else
  derivation (
    env
    // derivationArgs
    // {
      args = [
        "-c"
        script
      ];
    }
  )
  // {
    inherit meta;
  }
