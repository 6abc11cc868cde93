/**
  The subset of nixpkgs' buildGoModule (as of nixos-25.11,
  pkgs/build-support/go/module.nix) our packages use, enforcing the same
  contract where ours could get it wrong:

  - `vendorHash = null`: build from the committed vendor/ (GOFLAGS
    `-mod=vendor -trimpath`); a missing vendorHash is an error;
  - buildGoModule sets `env` itself: `env.GO111MODULE`, `env.GOTOOLCHAIN`
    and `env.CGO_ENABLED = args.env.CGO_ENABLED or go.CGO_ENABLED` (1
    here). Every other argument is passed on to the derivation, as
    stdenv.mkDerivation does, so a top-level `CGO_ENABLED` (the argument
    of releases before 25.05) or any `env` attribute of a name the
    derivation already has (GOFLAGS, ldflags, ...) is refused, as
    stdenv.mkDerivation refuses an `env` that overlaps the arguments;
  - `ldflags` gets `-buildid=` appended unless one is given; `tags` become
    `-tags=a,b` of the build and the tests, as module.nix passes them;
  - the build runs in $NIX_BUILD_TOP/$TMPDIR (never a fixed /build: Nix's
    sandbox may be off, Debian's default), GOCACHE and GOPATH under it;
  - `go install` of each subPackage (none given: every directory with a
    .go file outside vendor/, less `/_`, examples, Godeps and testdata, as
    getGoDirs does; a directory with only tests is passed over), the
    binaries in $out/bin, then `postInstall` in a POSIX shell (a static
    busybox sh stands in for bash);
  - `doCheck` (default true): after the build, `go test -vet=off -p
    $NIX_BUILD_CORES $checkFlags` in each subPackage, or without
    subPackages in each directory holding a *test.go file, on a writable
    copy of the source and with -trimpath taken out of GOFLAGS, as the
    checkPhase does.

  # Inputs

  `system`
  : The system the derivations build on.

  `go`
  : A Go toolchain directory (bin/go).

  `busybox`
  : A directory with a static busybox as bin/sh and bin/busybox.

  # Type

  ```
  buildGoModule :: { system :: String; go :: Path; busybox :: Path; } -> AttrSet -> Derivation
  ```

  # Examples
  :::{.example}
  ## `buildGoModule` usage example

  ```nix
  (import ./build-go-module.nix { inherit system go busybox; }) {
    pname = "p";
    version = "1";
    src = ./.;
    vendorHash = null;
    env.CGO_ENABLED = 0;
  }
  => «derivation /nix/store/…-p-1.drv»
  ```

  :::
*/
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
  tags ? [ ],
  GOFLAGS ? [ ],
  env ? { },
  postInstall ? "",
  doCheck ? true,
  checkFlags ? [ ],
  meta ? { },
  ...
}@args:
let
  inherit (builtins)
    any
    attrNames
    concatStringsSep
    filter
    hasAttr
    substring
    ;
  # buildGoModule's own `env` over the caller's, as module.nix sets it.
  goEnv = env // {
    GO111MODULE = "on";
    GOTOOLCHAIN = "local";
    CGO_ENABLED = env.CGO_ENABLED or 1;
  };
  hasBuildId = any (f: substring 0 9 f == "-buildid=") ldflags;
  # What stdenv.mkDerivation hands to `derivation`: the caller's arguments
  # (less env, meta and what buildGoModule consumes) and buildGoModule's.
  derivationArgs =
    removeAttrs args [
      "env"
      "meta"
      "passthru"
      "vendorHash"
    ]
    // {
      name = "${pname}-${version}";
      inherit system src postInstall;
      doCheck = if doCheck then "1" else "";
      builder = "${busybox}/bin/sh";
      GOFLAGS = concatStringsSep " " (GOFLAGS ++ [ "-mod=vendor" "-trimpath" ]);
      ldflags = concatStringsSep " " (ldflags ++ (if hasBuildId then [ ] else [ "-buildid=" ]));
      subPackages = concatStringsSep " " subPackages;
      tags = concatStringsSep "," tags;
      checkFlags = concatStringsSep " " checkFlags;
    };
  overlapping = filter (n: hasAttr n derivationArgs) (attrNames goEnv);
  script = ''
    set -eu
    bb=${busybox}/bin/busybox
    export PATH="$TMPDIR/bin:${go}/bin"
    $bb mkdir -p "$TMPDIR/bin"
    $bb --install -s "$TMPDIR/bin"
    export GOCACHE="$TMPDIR/go-cache" GOPATH="$TMPDIR/go" HOME="$TMPDIR"
    export GOPROXY=off GOSUMDB=off
    cores=''${NIX_BUILD_CORES:-1}
    [ "$cores" != 0 ] || cores=$(nproc)
    # getGoDirs: the subPackages, or the directories with a $1.go file.
    goDirs() {
      if [ -n "$subPackages" ]; then
        echo "$subPackages"
      else
        find . -type f -name "*$1.go" -not -path './vendor/*' | xargs -n1 dirname | sort -u \
          | grep -v -e '/_' -e examples -e Godeps -e testdata | sed 's|^\./||; s|^\.$|.|'
      fi
    }
    cd "$src"
    for p in $(goDirs ""); do
      echo "Building subPackage ./$p"
      if ! msg=$(go install -p "$cores" -tags="$tags" -ldflags="$ldflags" "./$p" 2>&1); then
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
      GOFLAGS=$(echo " $GOFLAGS " | sed 's/ -trimpath / /g')
      export GOFLAGS
      for p in $(goDirs test); do
        go test -vet=off -p "$cores" -tags="$tags" -ldflags="$ldflags" $checkFlags "./$p"
      done
      cd "$src"
    fi
    mkdir -p "$out"
    cp -r "$GOPATH/bin" "$out/"
    eval "$postInstall"
  '';
in
assert vendorHash == null;
if !(builtins.elem (toString goEnv.CGO_ENABLED) [ "0" "1" ]) then
  throw "buildGoModule: env.CGO_ENABLED must be 0 or 1"
else if overlapping != [ ] then
  throw (
    "buildGoModule stand-in: refused as stdenv.mkDerivation refuses it, `env` naming "
    + "derivation arguments; overlapping: ${concatStringsSep ", " overlapping}"
  )
else
  derivation (
    goEnv
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
