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
# - `go install` of each subPackage (none given: every package directory
#   outside vendor/ and testdata/, as getGoDirs does; directories holding
#   only tests are passed over), the binaries in $out/bin, then
#   `postInstall` in a POSIX shell (a static busybox sh stands in for bash);
# - `doCheck` (default true, as in nixpkgs): between build and install,
#   `go test -vet=off` in each of the same directories, on a writable copy
#   of the source and without -trimpath, as nixpkgs' checkPhase does.
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
    inherit
      system
      src
      CGO_ENABLED
      postInstall
      doCheck
      ;
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
    dirs=$subPackages
    if [ -z "$dirs" ]; then
      dirs=$(find . -name '*.go' -not -path './vendor/*' | xargs -n1 dirname | sort -u \
        | grep -v -e '/_' -e examples -e Godeps -e testdata | sed 's|^\./||; s|^\.$|.|')
    fi
    for p in $dirs; do
      echo "Building subPackage ./$p"
      if ! msg=$(go install -ldflags="$ldflags" "./$p" 2>&1); then
        case $msg in
          *"no non-test Go files"* | *"no Go files"* | *"build constraints exclude all"*) ;;
          *) echo "$msg" >&2; exit 1 ;;
        esac
      fi
    done
    if [ -n "$doCheck" ]; then
      cp -r "$src" "$TMPDIR/check-src"
      chmod -R u+w "$TMPDIR/check-src"
      cd "$TMPDIR/check-src"
      export GOFLAGS=-mod=vendor
      cores=''${NIX_BUILD_CORES:-1}
      [ "$cores" != 0 ] || cores=$(nproc)
      for p in $dirs; do
        go test -vet=off -p "$cores" -ldflags="$ldflags" "./$p"
      done
      cd "$src"
    fi
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
