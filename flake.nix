{
  description = "Find the features of NVIDIA CUDA redistributables, with Nix doing the fetching, caching and parallelism";

  # Only packages.<system>.default (the binary) uses nixpkgs; the pipeline
  # itself needs nothing but the static binary and Nix's built-in fetcher.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAllSystems =
        f:
        builtins.listToAttrs (
          map (system: {
            name = system;
            value = f system;
          }) systems
        );
      version = "0.1.0";
      nixLib = import ./nix;
      detectorFor = system: self.packages.${system}.default;
      featuresFor =
        system:
        nixLib.bundled {
          detector = detectorFor system;
          inherit system;
        };
    in
    {
      lib = nixLib;

      packages = forAllSystems (system: {
        default = nixpkgs.legacyPackages.${system}.callPackage ./nix/package.nix {
          src = import ./nix/source.nix ./.;
          inherit version;
        };
      });

      apps = forAllSystems (system: {
        default = {
          type = "app";
          program = "${detectorFor system}/bin/cuda-redist-find-features";
        };
      });

      # `nix build .#features.<redist>.<version>` (and `.entries.<pkg>.<platform>.<variant>.features`).
      legacyPackages = forAllSystems (system: {
        features = featuresFor system;
      });

      checks = forAllSystems (
        system:
        import ./nix/checks.nix {
          detector = detectorFor system;
          features = featuresFor system;
          inherit system;
          golden = ./tests/golden;
        }
      );

      hydraJobs = {
        package = forAllSystems (system: self.packages.${system}.default);
        checks = self.checks;
        features = forAllSystems featuresFor;
      };
    };
}
