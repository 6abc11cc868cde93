{
  description =
    "Find the features of NVIDIA CUDA redistributables, with Nix fetching, caching, parallelising";

  # Only packages.<system>.default (the binary) uses nixpkgs; the pipeline
  # itself needs nothing but the static binary and Nix's built-in fetcher.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      /**
        An attribute per system of `systems`, its value `f system`.

        # Inputs

        `f`
        : What to make for a system.

        # Type

        ```
        forAllSystems :: (string -> a) -> attrsOf a
        ```

        # Examples
        :::{.example}
        ## `forAllSystems` usage example

        ```nix
        forAllSystems (system: "hello-${system}")
        => { aarch64-linux = "hello-aarch64-linux"; x86_64-linux = "hello-x86_64-linux"; }
        ```

        :::
      */
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
      /**
        nixpkgs' package set for `system`.

        # Type

        ```
        pkgsFor :: string -> AttrSet
        ```
      */
      pkgsFor = system: nixpkgs.legacyPackages.${system};
      /**
        The CLI for `system`, the builder of the reports and the checks:
        the binary from the Go sources alone, so an edit to the Nix files
        rebuilds no report.

        # Type

        ```
        cliFor :: string -> derivation
        ```
      */
      cliFor = system: self.packages.${system}.cli;
      /**
        The bundled feature attributes (nix/bundled.nix) built on `system`.

        # Type

        ```
        featuresFor :: string -> AttrSet
        ```
      */
      featuresFor =
        system:
        nixLib.bundled {
          detectorProgram = self.packages.${system}.detector;
          aggregateProgram = self.packages.${system}.aggregate;
          cliProgram = cliFor system;
          inherit system;
        };
    in
    {
      packages = forAllSystems (system: {
        # The CLI alone, without its Nix library.
        cli = (pkgsFor system).callPackage ./nix/package.nix {
          src = import ./nix/source.nix ./.;
          inherit version;
        };
        # The builder of the unpack and detect derivations, from its own
        # sources alone (nix/builder-package.nix).
        detector = (pkgsFor system).callPackage ./nix/builder-package.nix {
          programName = "cuda-redist-detector";
          root = ./.;
        };
        # The builder of the aggregate, buildRedist and merged-index
        # derivations, from its own sources alone.
        aggregate = (pkgsFor system).callPackage ./nix/builder-package.nix {
          programName = "cuda-redist-aggregate";
          root = ./.;
        };
        # The CLI with its Nix library in share/cuda-redist-find-features
        # and the detector and the aggregate builder beside it in bin/:
        # `nix run .# -- process-manifests ...` works from any directory.
        default = (pkgsFor system).callPackage ./nix/package.nix {
          src = import ./nix/source.nix ./.;
          nixLib = import ./nix/nixlib-source.nix ./.;
          inherit (self.packages.${system}) detector aggregate;
          inherit version;
        };
      });

      apps = forAllSystems (system: {
        default = {
          type = "app";
          program = "${self.packages.${system}.default}/bin/cuda-redist-find-features";
          # nix flake check (2.26 and later) warns of an app without it.
          meta.description = "Find the features of NVIDIA's CUDA redistributables for Nixpkgs";
        };
      });

      # Go, Nix and what the tests use (gcc and binutils for fixtures,
      # patchelf as an oracle, xz, bzip2, bc, git, OpenSSH for the
      # remote-builder test), and nixfmt.
      devShells = forAllSystems (
        system:
        let
          pkgs = pkgsFor system;
        in
        {
          default = pkgs.mkShell {
            packages = [
              pkgs.go
              pkgs.nix
              pkgs.gcc
              pkgs.binutils
              pkgs.patchelf
              pkgs.xz
              pkgs.bzip2
              pkgs.bc
              pkgs.gitMinimal
              pkgs.openssh
              pkgs.nixfmt
            ];
          };
        }
      );

      formatter = forAllSystems (system: (pkgsFor system).nixfmt);

      # `nix build .#features.<redist>.<version>`
      # (and `.entries.<pkg>.<platform>.<variant>.features`), and the Nix
      # library (`import ./nix`, the same on every system) as `nixLib`: a
      # top-level output of its own is one `nix flake check` does not know,
      # and warns about.
      legacyPackages = forAllSystems (system: {
        features = featuresFor system;
        inherit nixLib;
      });

      checks = forAllSystems (
        system:
        import ./nix/checks.nix {
          cliProgram = cliFor system;
          features = featuresFor system;
          inherit system;
          golden = ./tests/golden;
        }
        // {
          # The Go tests that need no Nix (the others skip, naming why).
          go-unit-tests = (pkgsFor system).callPackage ./nix/go-unit-tests.nix {
            src = import ./nix/test-source.nix ./.;
            inherit version;
          };
        }
      );

      # Per manifest the aggregate and one job per archive (nix/hydra-jobs.nix).
      hydraJobs = import ./nix/hydra-jobs.nix {
        inherit systems featuresFor;
        packageFor = system: self.packages.${system}.default;
        inherit (self) checks;
      };
    };
}
