/**
  The derivations of the pipeline: for each manifest entry a fixed-output
  fetch, an unpack and a detect; for each manifest one aggregate; and a
  merge of aggregates into one index.

  No stdenv, no shell, no nixpkgs: fetches use Nix's `builtin:fetchurl`,
  and every other derivation has one of the two static builders as
  `builder` (the detector for the per-archive derivations, the aggregate
  builder for the per-manifest ones), so the closure of a detection is
  the archive plus one binary. The CLI builds none of them: a change to
  it rebuilds nothing here (its reports are nix/report.nix).

  # Inputs

  `detectorProgram`
  : Path of the static cuda-redist-detector binary, or a derivation with it
    in bin/: the builder of the unpack and detect derivations. Built from
    its own sources alone (nix/listed-source.nix), it keeps every
    per-archive derivation when only the CLI or the rules change.

  `aggregateProgram`
  : Path of the static cuda-redist-aggregate binary, or a derivation with
    it in bin/: the builder of the aggregate, buildRedist and
    merged-index derivations. Built from its own sources alone
    (nix/listed-source.nix), it keeps every one of them when only the CLI
    (reports, checks, --fix, printing) changes.

  `system`
  : The system the derivations build on (archives of any platform are
    detected on it: nothing executes their code).

  # Type

  ```
  pipeline :: {
    detectorProgram :: path | derivation; aggregateProgram :: path | derivation;
    system :: string;
  } -> {
    fetch, unpack, detect, entryDerivations, manifestFeatures, mergeIndex
  }
  ```

  # Examples
  :::{.example}
  ## `pipeline` usage example

  ```nix
  (import ./nix/pipeline.nix {
    detectorProgram = ./crff-detector;
    aggregateProgram = ./crff-aggregate;
    system = "x86_64-linux";
  }).manifestFeatures {
    redistName = "sample";
    version = "1.0.0";
    manifest = ./sample/redistrib_1.0.0.json;
    baseUrl = "file:///path/to/sample";
  }
  => «derivation /nix/store/…-sample-1.0.0-features.drv»
  ```

  :::
*/
{
  detectorProgram ? throw "pipeline: pass detectorProgram, the static cuda-redist-detector",
  aggregateProgram ? throw "pipeline: pass aggregateProgram, the static cuda-redist-aggregate",
  system,
}:
let
  inherit (builtins)
    baseNameOf
    concatMap
    isAttrs
    listToAttrs
    match
    placeholder
    replaceStrings
    stringLength
    substring
    ;

  manifestLib = import ./manifest.nix;

  # The builder of the per-archive derivations (unpack, detect).
  archiveBuilder =
    if isAttrs detectorProgram then
      "${detectorProgram}/bin/cuda-redist-detector"
    else
      "${detectorProgram}";

  # The builder of the per-manifest derivations (aggregate, buildRedist,
  # merged index).
  aggregateBuilder =
    if isAttrs aggregateProgram then
      "${aggregateProgram}/bin/cuda-redist-aggregate"
    else
      "${aggregateProgram}";

  /**
    `s` as a store path name: store path names allow [A-Za-z0-9+._?=-];
    space, `/`, `:`, `@` and `~` become `-` (the characters manifests'
    names and versions hold).

    # Inputs

    `s`
    : The name to make store-safe.

    # Type

    ```
    sanitize :: string -> string
    ```

    # Examples
    :::{.example}
    ## `sanitize` usage example

    ```nix
    sanitize "cuda 12/x"
    => "cuda-12-x"
    ```

    :::
  */
  sanitize =
    s:
    let
      m = match "[A-Za-z0-9+._?=-]*" s;
    in
    if m != null then s else replaceStrings [ " " "/" ":" "@" "~" ] [ "-" "-" "-" "-" "-" ] s;

  /**
    The archive's file name without its archive suffix, store-safe.

    # Inputs

    `relativePath`
    : The archive's `relative_path` in the manifest.

    # Type

    ```
    stemOf :: string -> string
    ```

    # Examples
    :::{.example}
    ## `stemOf` usage example

    ```nix
    stemOf "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.8.57-archive.tar.xz"
    => "cuda_cudart-linux-x86_64-12.8.57-archive"
    ```

    :::
  */
  stemOf =
    relativePath:
    let
      base = baseNameOf relativePath;
      m = match "(.*)\\.(tar\\.xz|tar\\.gz|tgz|tar\\.bz2|tbz2|tar\\.zst|tzst|tar|zip)" base;
    in
    sanitize (if m == null then base else builtins.head m);

  /**
    The stem of an archive name the walker (manifest.nix) lists. Such a
    name is already store-safe (SafeRelativePath allows a subset of the
    characters a store path name may hold), so it needs no sanitize; and
    the suffixes nearly every archive has are cut with substring, because
    std::regex's POSIX matching of stemOf's pattern tries every split of
    the name and, with sanitize, was the largest per-archive cost of
    evaluation. Same result as stemOf on such names: no suffix of the list
    is another one's dotted suffix, so there is one way to cut.

    # Inputs

    `base`
    : The archive's file name (the base name of a listed relative_path).

    # Type

    ```
    validStemOf :: string -> string
    ```

    # Examples
    :::{.example}
    ## `validStemOf` usage example

    ```nix
    validStemOf "demo_samples-linux-x86_64-1.0.0-archive.tar.xz"
    => "demo_samples-linux-x86_64-1.0.0-archive"
    ```

    :::
  */
  validStemOf =
    base:
    let
      l = stringLength base;
    in
    if l > 7 && substring (l - 7) 7 base == ".tar.xz" then
      substring 0 (l - 7) base
    else if l > 4 && substring (l - 4) 4 base == ".zip" then
      substring 0 (l - 4) base
    else
      let
        m = match "(.*)\\.(tar\\.xz|tar\\.gz|tgz|tar\\.bz2|tbz2|tar\\.zst|tzst|tar|zip)" base;
      in
      if m == null then base else builtins.head m;

  /**
    The attribute name of an entry's variant under `entries.<package>.<platform>`:
    the variant, or `"None"` for an archive without one (the name the
    feature files use).

    # Inputs

    `e`
    : A manifest entry (nix/manifest.nix).

    # Type

    ```
    variantKey :: Entry -> string
    ```
  */
  variantKey = e: if e.variant == null then "None" else e.variant;

  # What builtin:fetchurl honours of the environment (proxies). One list
  # for every fetch rather than one per derivation.
  fetchImpureEnvVars = [
    "http_proxy"
    "https_proxy"
    "ftp_proxy"
    "all_proxy"
    "no_proxy"
  ];
in
rec {
  /**
    Fixed-output fetch of one archive with `builtin:fetchurl`. A wrong
    sha256 fails this derivation alone, with Nix's hash-mismatch message.
    Not `preferLocalBuild`: on remote builders the fetch, unpack and detect
    of a multi-GB archive should happen on one machine.

    # Inputs

    `baseUrl`
    : Where the manifest's `relative_path`s are resolved, without a trailing slash.

    `entry`
    : The manifest entry (nix/manifest.nix): its `relativePath` and `sha256`.

    `name`
    : The archive's file name, when the caller has it store-safe (default:
      the sanitized base name of `entry.relativePath`).

    # Type

    ```
    fetch :: { baseUrl :: string; entry :: Entry; name :: string?; } -> derivation
    ```

    # Examples
    :::{.example}
    ## `fetch` usage example

    ```nix
    fetch { baseUrl = "https://example.invalid/redist"; inherit entry; }
    => «derivation /nix/store/…-demo-tools-1.0.7.tar.gz.drv»
    ```

    :::
  */
  fetch =
    {
      baseUrl,
      entry,
      name ? sanitize (baseNameOf entry.relativePath),
    }:
    derivation {
      inherit name;
      system = "builtin";
      builder = "builtin:fetchurl";
      url = "${baseUrl}/${entry.relativePath}";
      outputHashMode = "flat";
      outputHashAlgo = "sha256";
      outputHash = entry.sha256;
      impureEnvVars = fetchImpureEnvVars;
    };

  /**
    The archive's content as a store path, with a single top-level
    directory stripped (as `fetchzip` does). The builder refuses unsafe
    archives with an error naming the entry.

    # Inputs

    `src`
    : The fetched archive (`fetch`).

    `entry`
    : The manifest entry the archive belongs to.

    `stem`
    : The archive's name without its suffix, when the caller has it
      (default: `stemOf entry.relativePath`); names the derivation.

    `narHash`
    : The tree's NAR hash recorded by an earlier run (unpacked-hashes.json,
      see docs/nixpkgs.md), or `null`. With it the unpack is a fixed-output
      derivation (`outputHashMode = "recursive"`): its store path depends
      on the tree and the archive's sha256 alone (its name is
      `<stem>-<sha256>`), so no change of the unpacker rebuilds it or what
      reads it, no record can name another archive's tree, and a tree the
      unpacker no longer reproduces fails with Nix's hash mismatch. Any
      client of the store can make such a path valid with any tree of
      that hash: the CLI takes one only once it knows this tool unpacked
      it from this archive (docs/safety.md, "Pinned unpacks").

    # Type

    ```
    unpack :: {
      src :: derivation; entry :: Entry; stem :: string?; narHash :: string | null;
    } -> derivation
    ```
  */
  unpack =
    {
      src,
      entry,
      stem ? stemOf entry.relativePath,
      narHash ? null,
    }:
    if narHash == null then
      derivation {
        name = stem;
        inherit system;
        builder = archiveBuilder;
        args = [
          "unpack"
          "${src}"
          (placeholder "out")
        ];
      }
    else
      derivation {
        name = pinnedName stem entry;
        inherit system;
        builder = archiveBuilder;
        args = [
          "unpack"
          "${src}"
          (placeholder "out")
        ];
        outputHashMode = "recursive";
        outputHashAlgo = "sha256";
        outputHash = narHash;
      };

  /**
    The `trees` of an unpacked-hashes.json (a path or its decoded
    content): archive sha256 → { narHash; relativePath; }. A file of the
    first format (`archives`, keyed by relative_path) is refused with
    what to do: `process-manifests` rewrites it in this one.

    # Type

    ```
    treesOf :: path | AttrSet -> AttrSet
    ```
  */
  treesOf =
    file:
    let
      doc = if isAttrs file then file else builtins.fromJSON (builtins.readFile file);
    in
    if (doc.format or null) == 2 then
      doc.trees
    else
      throw (
        "unpacked-hashes.json: not of format 2 (keyed by the archive's sha256);"
        + " run process-manifests once to rewrite it, or delete it"
      );

  /**
    The name of a pinned unpack: the stem, cut to 120 bytes (a store
    path's name holds 211), and the archive's sha256. The store path of
    a fixed-output derivation depends on its name and hash alone, so the
    archive's content hash in the name is what ties the path to the
    archive: a record that gives archive B the NAR hash of archive A's
    tree names a path A's tree is not at.

    # Type

    ```
    pinnedName :: string -> Entry -> string
    ```
  */
  pinnedName = stem: entry: "${substring 0 120 stem}-${entry.sha256}";

  /**
    The NAR hash recorded for an entry in `hashes` (the `trees` of an
    unpacked-hashes.json), or `null`: a record is keyed by the archive's
    sha256, so a replaced archive is unpacked as if never seen, and two
    archives of one file name have a record each.

    # Inputs

    `hashes`
    : The `trees` attribute set of unpacked-hashes.json, or `null`.

    `entry`
    : A manifest entry.

    # Type

    ```
    recordedNarHash :: AttrSet | null -> Entry -> string | null
    ```
  */
  recordedNarHash =
    hashes: entry:
    let
      r = if hashes == null then null else hashes.${entry.sha256} or null;
    in
    if r != null then r.narHash else null;

  /**
    The features of an unpacked tree: a JSON file (see docs/detection.md).

    # Inputs

    `unpacked`
    : The unpacked archive (`unpack`).

    `entry`
    : The manifest entry (unused: the facts of a tree do not depend on it).

    `stem`
    : As for `unpack`; the derivation is `<stem>-features.json`.

    # Type

    ```
    detect :: { unpacked :: derivation; entry :: Entry; stem :: string?; } -> derivation
    ```
  */
  detect =
    {
      unpacked,
      entry,
      stem ? stemOf entry.relativePath,
    }:
    derivation {
      name = "${stem}-features.json";
      inherit system;
      builder = archiveBuilder;
      # Nix hashed the unpacked tree when it registered it; exported, its
      # NAR hash reaches the builder in .attrs.json, which then reads the
      # tree only for what it detects instead of hashing it all again.
      __structuredAttrs = true;
      exportReferencesGraph.tree = [ unpacked ];
      # The facts of the tree only: what the buildRedist rules derive
      # from them (with the variant's CUDA major) is the aggregate's, so
      # neither the rules nor the variant are part of this derivation.
      args = [
        "detect"
        "--nar-hash-from-nix"
        "--out"
        (placeholder "out")
        "${unpacked}"
      ];
    };

  /**
    Fetch, unpack and detect one manifest entry.

    # Inputs

    `baseUrl`
    : As for `fetch`.

    `entry`
    : The manifest entry.

    # Type

    ```
    entryDerivations :: { baseUrl :: string; entry :: Entry; } -> {
      src :: derivation; unpacked :: derivation; features :: derivation;
    }
    ```

    # Examples
    :::{.example}
    ## `entryDerivations` usage example

    ```nix
    (entryDerivations { baseUrl = "file:///srv/sample"; inherit entry; }).features
    => «derivation /nix/store/…-demo_samples-linux-x86_64-1.0.0-archive-features.json.drv»
    ```

    :::
  */
  entryDerivations =
    { baseUrl, entry }:
    let
      # Computed once for the unpack and the detect.
      stem = stemOf entry.relativePath;
    in
    rec {
      src = fetch { inherit baseUrl entry; };
      unpacked = unpack { inherit src entry stem; };
      features = detect { inherit unpacked entry stem; };
    };

  /**
    The features of one manifest: a directory holding
    `feature_<version>.json` (the legacy format, byte-compatible with the
    files Nixpkgs carried), `index.json` (the index format with narHash),
    `detail.json` (everything detect found, per entry) and
    `buildRedist.json` (what each package's buildRedist call should declare).

    The aggregate's builder is given, in structured attributes, each
    selected archive of the walker (nix/manifest.nix: package, platform,
    variant, relativePath, sha256 and its detection) and each package's
    releaseInfo: it lists no archive itself, and reads the manifest only
    to validate it with the Go parser, the one validator: a manifest Go
    refuses fails this derivation, with Go's message naming the manifest
    and where in it.

    The result also carries `entries.<package>.<platform>.<variant>` with
    each entry's walker record `entry` and its `src`, `unpacked` and `features`
    derivations.

    # Inputs

    `redistName`
    : The product, e.g. `"cuda"`, `"cudnn"`.

    `version`
    : The manifest's version, e.g. `"12.8.0"`.

    `manifest`
    : Path of the `redistrib_<version>.json` file.

    `baseUrl`
    : Where `relative_path`s are resolved, without a trailing slash.

    `platforms`
    : The platforms to include, e.g. `[ "linux-x86_64" ]` (default `null`: all).

    `packages`
    : The packages to include (default `null`: all).

    `unpackedHashes`
    : The unpacked trees' NAR hashes an earlier run recorded: the path of
      an unpacked-hashes.json (docs/nixpkgs.md; its schema is
      `print-feature-schema --format unpacked-hashes`), its decoded
      content (format 2, `treesOf`), or `null` (the default: nothing
      pinned). An archive with a record (its sha256) is unpacked by a
      fixed-output derivation. Nix takes a valid path of that name and
      hash as it is; the CLI first checks that it is this archive's
      unpack (docs/safety.md).

    # Type

    ```
    manifestFeatures :: {
      redistName :: string;
      version :: string;
      manifest :: path;
      baseUrl :: string;
      platforms :: [ string ] | null;
      packages :: [ string ] | null;
      unpackedHashes :: path | AttrSet | null;
    } -> derivation
    ```

    # Examples
    :::{.example}
    ## `manifestFeatures` usage example

    ```nix
    (manifestFeatures {
      redistName = "sample";
      version = "1.0.0";
      manifest = ./sample/redistrib_1.0.0.json;
      baseUrl = "file:///srv/sample";
    }).entries.cuda_demo_rt.linux-x86_64.None.features
    => «derivation /nix/store/…-features.json.drv»
    ```

    :::
  */
  manifestFeatures =
    {
      redistName,
      version,
      manifest,
      baseUrl,
      platforms ? null,
      packages ? null,
      unpackedHashes ? null,
    }:
    let
      text = builtins.readFile manifest;
      hashes =
        if unpackedHashes == null then null else treesOf unpackedHashes;
      entries = manifestLib.entries {
        name = "${redistName}/${baseNameOf manifest}";
        manifest = builtins.fromJSON text;
        inherit platforms packages;
      };
      # The manifest the aggregate's builder reads. A path is written from
      # the text already read, with toFile: the same file under the same
      # name, without the NAR dump of "${manifest}" (a coroutine and
      # 64 KiB buffers per file, about 4% of evaluating 185 manifests).
      manifestFile =
        if builtins.isPath manifest then
          builtins.toFile (baseNameOf manifest) text
        else
          "${manifest}";
      /**
        entryDerivations for an entry of `entries`, whose relative_path
        the walker lists only when safe (manifest.nix): its names need no
        sanitize.

        # Type

        ```
        drvsOf :: Entry -> {
          entry :: Entry; src :: derivation; unpacked :: derivation; features :: derivation;
        }
        ```
      */
      drvsOf =
        entry:
        let
          base = baseNameOf entry.relativePath;
          stem = validStemOf base;
          src = fetch {
            inherit baseUrl entry;
            name = base;
          };
          narHash = recordedNarHash hashes entry;
          unpacked = unpack { inherit src entry stem narHash; };
          features = detect { inherit unpacked entry stem; };
        in
        {
          # The walker's record, for readers of `entries` (nix/cli.nix):
          # the one list of the manifest's archives, never re-derived.
          inherit entry src unpacked features;
          # The NAR hash the unpack is pinned to, or null; and the same
          # unpack not pinned, which the CLI builds to name the first
          # differing path when a pinned one fails its hash.
          pinnedNarHash = narHash;
          # The name the pinned unpack has (the CLI registers a tree there).
          pinnedName = pinnedName stem entry;
          unpinned = if narHash == null then unpacked else unpack { inherit src entry stem; };
          # Its detection: the listing the CLI compares when a pinned
          # tree is not this archive's (the driver reads no tree itself).
          unpinnedFeatures =
            if narHash == null then
              features
            else
              detect {
                unpacked = unpack { inherit src entry stem; };
                inherit entry stem;
              };
        };
      # Each entry with its derivations, shared by the aggregate and
      # `entries`. A pair rather than `entry // { ... }`: no copy of the
      # entry's attributes per archive.
      withDrvs = map (entry: {
        inherit entry;
        drvs = drvsOf entry;
      }) entries;
      aggregate = derivation {
        name = sanitize "${redistName}-${version}-features";
        inherit system;
        builder = aggregateBuilder;
        args = [ "aggregate" ];
        __structuredAttrs = true;
        # Tiny and cheap: not worth shipping to a remote builder.
        preferLocalBuild = true;
        allowSubstitutes = false;
        inherit redistName version;
        # Validated by the builder with the Go parser (a manifest Go
        # refuses fails here, by name), never listed: the archives and
        # releases below, the walker's, are all it aggregates.
        manifest = manifestFile;
        # package → the index format's releaseInfo, for the packages of
        # the selected archives.
        releases = listToAttrs (
          map (x: {
            name = x.entry.package;
            value = x.entry.releaseInfo;
          }) withDrvs
        );
        archives = map (
          x:
          let
            e = x.entry;
          in
          {
            inherit (e)
              package
              platform
              relativePath
              sha256
              ;
            variant = variantKey e;
            features = "${x.drvs.features}";
          }
        ) withDrvs;
      };
      /**
        `list` grouped by `keyOf`, each group mapped by `f`.

        # Type

        ```
        byKey :: (a -> string) -> ([ a ] -> b) -> [ a ] -> attrsOf b
        ```
      */
      byKey = keyOf: f: list: builtins.mapAttrs (_: f) (builtins.groupBy keyOf list);
      tree = byKey (x: x.entry.package) (
        byKey (x: x.entry.platform) (
          ys:
          listToAttrs (
            map (y: {
              name = variantKey y.entry;
              value = y.drvs;
            }) ys
          )
        )
      ) withDrvs;
      # The buildRedist declarations alone, as JSON: the aggregate
      # builder's, so that a change of the CLI alone keeps it.
      buildRedist = derivation {
        name = sanitize "${redistName}-${version}-buildRedist.json";
        inherit system;
        builder = aggregateBuilder;
        args = [
          "print-buildredist"
          "--json"
          "--out"
          (placeholder "out")
          "${aggregate}"
        ];
        preferLocalBuild = true;
        allowSubstitutes = false;
      };
    in
    aggregate
    // {
      entries = tree;
      inherit buildRedist;
    };

  /**
    Merge the index of several manifests' features into one `index.json`
    (redistName → version → package → …).

    # Inputs

    `name`
    : Names the derivation (`<name>-index`).

    `features`
    : The aggregates (`manifestFeatures` results) whose index.json to merge.

    # Type

    ```
    mergeIndex :: { name :: string; features :: [ derivation ]; } -> derivation
    ```
  */
  mergeIndex =
    { name, features }:
    derivation {
      name = sanitize "${name}-index";
      inherit system;
      builder = aggregateBuilder;
      args = [ "merge-index" ];
      __structuredAttrs = true;
      preferLocalBuild = true;
      allowSubstitutes = false;
      indexes = map (f: "${f}/index.json") features;
    };
}
