# An offline stand-in for nixpkgs, for `nix flake check --override-input
# nixpkgs path:<this dir>` where nixpkgs can't be fetched. It provides the
# one attribute our flake uses, legacyPackages.<system>.buildGoModule, and
# builds the binary from source in the sandbox with a Go toolchain copied
# into ./go by scripts/nixpkgs-stand-in.sh (pure evaluation can read
# nothing outside this directory).
{
  outputs =
    { self }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
    in
    {
      legacyPackages = builtins.listToAttrs (
        map (system: {
          name = system;
          value = rec {
            buildGoModule = import ./build-go-module.nix {
              inherit system;
              go = ./go;
            };
            callPackage = f: args: (import f) ({ inherit buildGoModule; } // args);
          };
        }) systems
      );
    };
}
