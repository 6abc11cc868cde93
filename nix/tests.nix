/**
  Evaluation tests of nix/manifest.nix (and of what nix/pipeline.nix passes
  its builders from the walker's entries), in the shape of nixpkgs' runTests:
  a list of { name, expr, expected }. nix/checks.nix writes the values of
  both sides to files and its `eval` check compares them in its builder, so
  a mismatch fails that build.

  # Inputs

  `golden`
  : The directory of expected results (tests/golden; entry-counts.json is read).

  # Type

  ```
  tests :: { golden :: Path; } -> [ { name :: String; expr :: Any; expected :: Any; } ]
  ```
*/
{ golden }:
let
  inherit (import ./manifest.nix) entries;
  # The pipeline with a builder that is never run: its derivations'
  # attributes are all these tests read.
  pipeline = import ./pipeline.nix {
    detectorProgram = "/no-detector";
    aggregateProgram = "/no-aggregate";
    system = "x86_64-linux";
  };
  sha = builtins.concatStringsSep "" (builtins.genList (_: "a") 64);
  /**
    A manifest leaf (one archive) at `path`, with a fixed sha256.

    # Type

    ```
    leaf :: String -> { relative_path :: String; sha256 :: String; }
    ```
  */
  leaf = path: {
    relative_path = path;
    sha256 = sha;
  };
  /**
    Archives per manifest of dir/<redist>/redistrib_*.json, every entry
    forced (deepSeq).

    # Inputs

    `dir`
    : A directory of redist directories (manifests/, or a test's).

    # Type

    ```
    countsIn :: path -> attrsOf int
    ```

    # Examples
    :::{.example}
    ## `countsIn` usage example

    ```nix
    (countsIn ../manifests)."cuda/redistrib_12.8.0.json"
    => 132
    ```

    :::
  */
  countsIn =
    dir:
    let
      redists = builtins.attrNames (
        builtins.removeAttrs (builtins.readDir dir) [
          "SOURCE.md"
          "README.md"
        ]
      );
      /**
        The manifest file names of the redist directory `r`.

        # Type

        ```
        files :: string -> [ string ]
        ```
      */
      files =
        r:
        builtins.filter (f: builtins.match "redistrib_.*\\.json" f != null) (
          builtins.attrNames (builtins.readDir (dir + "/${r}"))
        );
      /**
        How many archives the manifest `file` lists, all forced.

        # Type

        ```
        count :: string -> path -> int
        ```
      */
      count =
        name: file:
        let
          es = entries {
            inherit name;
            manifest = builtins.fromJSON (builtins.readFile file);
          };
        in
        builtins.deepSeq es (builtins.length es);
    in
    builtins.listToAttrs (
      builtins.concatMap (
        r:
        map (f: {
          name = "${r}/${f}";
          value = count "${r}/${f}" (dir + "/${r}/${f}");
        }) (files r)
      ) redists
    );
in
[
  {
    name = "v2 entry";
    expr = entries {
      name = "m";
      manifest = {
        release_date = "x";
        p = {
          version = "1";
          name = "P";
          linux-x86_64 = leaf "p.tar.xz";
        };
      };
    };
    expected = [
      {
        package = "p";
        platform = "linux-x86_64";
        variant = null;
        relativePath = "p.tar.xz";
        sha256 = sha;
        version = "1";
        releaseInfo = {
          name = "P";
          license = "";
          licensePath = "";
          version = "1";
        };
      }
    ];
  }
  {
    name = "v3 variants and source";
    expr = map (e: "${e.package}/${e.platform}/${toString e.variant}") (entries {
      name = "m";
      manifest = {
        p = {
          version = "1";
          cuda_variant = [ "11" "12" ];
          linux-sbsa = { cuda12 = leaf "b"; };
          linux-x86_64 = { cuda11 = leaf "a"; cuda12 = leaf "c"; };
        };
        s = { version = "1"; source = leaf "s"; };
      };
    });
    expected = [
      "p/linux-sbsa/cuda12"
      "p/linux-x86_64/cuda11"
      "p/linux-x86_64/cuda12"
      "s/source/"
    ];
  }
  {
    name = "platform and package selection";
    expr = map (e: e.platform) (entries {
      name = "m";
      manifest = {
        p = { version = "1"; linux-x86_64 = leaf "a"; linux-sbsa = leaf "b"; };
        q = { version = "1"; linux-sbsa = leaf "c"; };
      };
      platforms = [ "linux-sbsa" ];
      packages = [ "p" ];
    });
    expected = [ "linux-sbsa" ];
  }
  {
    # The walker lists; the Go parser judges. What is not shaped like an
    # archive is left out, and nothing is an evaluation error.
    name = "what is not an archive is left out, never an error";
    expr = map (e: "${e.package}/${e.platform}/${toString e.variant}=${e.relativePath}") (entries {
      name = "m";
      manifest = {
        release_notes = "x";
        release_date = {
          p = leaf "in-metadata";
        };
        n = 5;
        p = {
          version = 3;
          name = [ ];
          linux-riscv64 = leaf "unknown-platform";
          linux-x86_64 = leaf "../up" // {
            cuda12 = leaf "ok-variant";
            cuda13 = leaf "/abs";
            "cuda13.1.2" = leaf "three-part";
            cudaX = leaf "not-a-variant";
          };
          linux-sbsa = {
            cuda12 = leaf "bad-sha" // {
              sha256 = "A";
            };
            cuda11 = "not an object";
            cuda13 = {
              relative_path = 7;
              sha256 = sha;
            };
          };
          linux-aarch64 = leaf (builtins.concatStringsSep "" (builtins.genList (_: "n") 181));
          windows-x86_64 = "not an object";
          source = leaf "extra-field" // {
            url = "u";
          };
        };
      };
    });
    expected = [
      "p/linux-x86_64/cuda12=ok-variant"
      "p/source/=extra-field"
    ];
  }
  {
    name = "a manifest that is not an object lists nothing";
    expr = map (manifest: entries { name = "m"; inherit manifest; }) [
      [ ]
      "x"
      null
    ];
    expected = [
      [ ]
      [ ]
      [ ]
    ];
  }
  {
    name = "release fields of the wrong type read as absent";
    expr = map (e: e.releaseInfo) (entries {
      name = "m";
      manifest.p = {
        version = 1;
        name = "P";
        license = { };
        linux-x86_64 = leaf "a";
      };
    });
    expected = [
      {
        name = "P";
        license = "";
        licensePath = "";
        version = "";
      }
    ];
  }
  {
    # The Go parser wrote this file (TestGoldenEntryCounts): both sides
    # must find the same archives in every bundled manifest.
    name = "bundled manifests: same entry counts as the Go parser";
    expr = countsIn ../manifests;
    expected = builtins.fromJSON (builtins.readFile (golden + "/entry-counts.json"));
  }
  {
    # The same for every manifest Nixpkgs carries (TestEveryNixpkgsManifest
    # holds the Go parser to an independent walk of the same files).
    name = "Nixpkgs' 217 manifests: same entry counts as the Go parser";
    expr = countsIn ../tests/testdata/nixpkgs-manifests;
    expected = builtins.fromJSON (builtins.readFile (golden + "/nixpkgs-entry-counts.json"));
  }
  {
    name = "major.minor variant (cuda_compat from CUDA 13.1)";
    expr = map (e: e.variant) (entries {
      name = "m";
      manifest.p = {
        version = "1";
        cuda_variant = [ "13.1" ];
        linux-x86_64 = { "cuda13.1" = leaf "a"; };
      };
    });
    expected = [ "cuda13.1" ];
  }
  {
    name = "an archive and a variant side by side (cuDNN 9.27 windows-arm64)";
    expr = map (e: "${e.platform}/${toString e.variant}=${e.relativePath}") (entries {
      name = "m";
      manifest.p = {
        version = "1";
        cuda_variant = [ "13" ];
        windows-arm64 = leaf "a.zip" // { md5 = "m"; cuda13 = leaf "b.zip"; };
      };
    });
    expected = [
      "windows-arm64/=a.zip"
      "windows-arm64/cuda13=b.zip"
    ];
  }
  {
    # The detect derivation records the facts of the tree only: the
    # variant's CUDA major is the aggregate's (buildredist.Complete), so
    # the variant is not among its arguments.
    name = "detect takes no variant";
    expr =
      map
        (
          variant:
          (pipeline.detect {
            unpacked = "/unpacked";
            entry = {
              inherit variant;
              relativePath = "p/p-1_cuda13.1-archive.tar.xz";
            };
          }).drvAttrs.args
        )
        [
          "cuda13.1"
          null
        ];
    expected = [
      [
        "detect"
        "--nar-hash-from-nix"
        "--out"
        (builtins.placeholder "out")
        "/unpacked"
      ]
      [
        "detect"
        "--nar-hash-from-nix"
        "--out"
        (builtins.placeholder "out")
        "/unpacked"
      ]
    ];
  }
  {
    # A recorded NAR hash pins the unpack (fixed-output, recursive) for
    # the archive of the same sha256 only; the detector builds unpack and
    # detect, the aggregate builder the merged index (and the aggregate).
    name = "unpacks pinned by recorded NAR hash, built by the detector";
    expr =
      let
        p = import ./pipeline.nix {
          detectorProgram = "/no-detector";
          aggregateProgram = "/no-aggregate";
          system = "x86_64-linux";
        };
        nar = "sha256-" + builtins.concatStringsSep "" (builtins.genList (_: "A") 43) + "=";
        # unpacked-hashes.json's trees: keyed by the archive's sha256.
        trees.${sha} = {
          relativePath = "a/b.tar.xz";
          narHash = nar;
        };
        entry = sha256: {
          relativePath = "a/b.tar.xz";
          inherit sha256;
          variant = null;
        };
        unpackOf =
          e:
          (p.unpack {
            src = "/src";
            entry = e;
            narHash = p.recordedNarHash trees e;
          }).drvAttrs;
        pinned = unpackOf (entry sha);
        other = unpackOf (entry (builtins.replaceStrings [ "a" ] [ "b" ] sha));
      in
      {
        pinned = {
          inherit (pinned) name builder outputHash outputHashMode;
        };
        replacedArchive = other ? outputHash;
        detectBuilder =
          (p.detect {
            unpacked = "/unpacked";
            entry = entry sha;
          }).drvAttrs.builder;
        mergeIndexBuilder =
          (p.mergeIndex {
            name = "x";
            features = [ ];
          }).drvAttrs.builder;
      };
    expected = {
      pinned = {
        # The archive's sha256 in the name ties the path to the archive.
        name = "b-${sha}";
        builder = "/no-detector";
        outputHash = "sha256-" + builtins.concatStringsSep "" (builtins.genList (_: "A") 43) + "=";
        outputHashMode = "recursive";
      };
      replacedArchive = false;
      detectBuilder = "/no-detector";
      mergeIndexBuilder = "/no-aggregate";
    };
  }
  {
    # The aggregate's builder lists no archive itself: the selected
    # archives and their packages' releaseInfo are the walker's. (A file
    # of the repository: pure evaluation reads no file toFile wrote.)
    name = "the aggregate is given the walker's archives and releases";
    expr =
      let
        attrs =
          (pipeline.manifestFeatures {
            redistName = "cuda";
            version = "13.1.1";
            manifest = ../tests/testdata/nixpkgs-manifests/cuda/redistrib_13.1.1.json;
            baseUrl = "file:///nowhere";
            platforms = [ "linux-x86_64" ];
            packages = [
              "cuda_compat"
              "cuda_crt"
            ];
          }).drvAttrs;
      in
      {
        inherit (attrs) releases;
        archives = map (a: removeAttrs a [ "features" ]) attrs.archives;
      };
    expected = {
      releases = {
        cuda_compat = {
          name = "CUDA Forward Compatability";
          license = "CUDA Toolkit";
          licensePath = "cuda_compat/LICENSE.txt";
          version = "590.48.01";
        };
        cuda_crt = {
          name = "CUDA CRT";
          license = "CUDA Toolkit";
          licensePath = "cuda_crt/LICENSE.txt";
          version = "13.1.115";
        };
      };
      archives = [
        {
          package = "cuda_compat";
          platform = "linux-x86_64";
          variant = "cuda13.1";
          relativePath =
            "cuda_compat/linux-x86_64/"
            + "cuda_compat-linux-x86_64-590.48.01_cuda13.1-archive.tar.xz";
          sha256 = "0e8c1ec14c2abbce76943cb32907b39237a41bf267ec6665f04d48b240ae539f";
        }
        {
          package = "cuda_crt";
          platform = "linux-x86_64";
          variant = "None";
          relativePath = "cuda_crt/linux-x86_64/cuda_crt-linux-x86_64-13.1.115-archive.tar.xz";
          sha256 = "e2861bbc6400815be6689cdc84afddfedc51103189888c8e51a2e9543e55a5b3";
        }
      ];
    };
  }
]
