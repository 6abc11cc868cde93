# An offline stand-in for nixpkgs, for `nix flake check --override-input
# nixpkgs path:<this dir>` where nixpkgs can't be fetched. It provides what
# our flake uses: legacyPackages.<system>.buildGoModule (the binary, built
# from source in the sandbox with a Go toolchain copied into ./go, and a
# static busybox in ./busybox/bin as the shell, both by
# scripts/nixpkgs-stand-in.sh: pure evaluation reads nothing outside this
# directory), callPackage, lib.optionalString, mkShell, and the tools the
# dev shell and formatter name, which are stand-ins that evaluate but
# refuse to build (they are not available offline).
{
  outputs =
    { self }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forSystem =
        system:
        let
          busybox = ./busybox;
          # A tool the offline stand-in cannot provide: it evaluates (so
          # devShells and formatter can be checked) and fails if built.
          unavailable =
            name:
            derivation {
              inherit name system;
              builder = "${busybox}/bin/sh";
              args = [
                "-c"
                "echo '${name} is not in the offline nixpkgs stand-in' >&2; exit 1"
              ];
            };
        in
        rec {
          lib.optionalString = cond: s: if cond then s else "";
          buildGoModule = import ./build-go-module.nix {
            inherit system busybox;
            go = ./go;
          };
          callPackage =
            f: args:
            let
              fn = import f;
              available = { inherit buildGoModule lib; };
              wanted = builtins.intersectAttrs (builtins.functionArgs fn) available;
            in
            fn (wanted // args);
          mkShell =
            {
              packages ? [ ],
              ...
            }@attrs:
            derivation {
              name = attrs.name or "nix-shell";
              inherit system;
              builder = "${busybox}/bin/sh";
              args = [
                "-c"
                "echo $packages > $out"
              ];
              inherit packages;
            };
          go = unavailable "go";
          nix = unavailable "nix";
          gcc = unavailable "gcc";
          binutils = unavailable "binutils";
          patchelf = unavailable "patchelf";
          xz = unavailable "xz";
          bzip2 = unavailable "bzip2";
          bc = unavailable "bc";
          gitMinimal = unavailable "git";
          openssh = unavailable "openssh";
          nixfmt = unavailable "nixfmt";
        };
    in
    {
      legacyPackages = builtins.listToAttrs (
        map (system: {
          name = system;
          value = forSystem system;
        }) systems
      );
    };
}
