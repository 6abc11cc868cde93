/**
  Listing the archives of NVIDIA redistributable manifests in Nix.

  This walker lists; it does not validate. The Go parser (`lib/manifest`)
  is the one validator of a manifest: the CLI runs it before it evaluates
  anything, and the aggregate derivation's builder runs it on the
  manifest it is given, so a manifest Go refuses fails that manifest's
  aggregate with Go's message (what and where), whichever way it is built.

  The walker goes packages → platforms → variants → archives and lists
  each value that has the shape of an archive: an object whose
  `relative_path` is a string that lib/manifest's SafeRelativePath
  accepts, with a file name of at most 180 characters, and whose `sha256`
  is 64 lowercase hex digits. Anything else (an unknown key, a value of
  the wrong type, an unsafe path, a bad hash) is left out, never an
  evaluation error: every derivation made from a listed entry
  instantiates (its names are store-safe and short enough, its URL stays
  under the base URL, its hash is a hash), also for a manifest Go
  refuses. For every manifest Go accepts, the walker lists exactly the
  archives Go lists (tests/nixpipeline, TestNixWalkerListsWhatGoAccepts).

  The known platforms come from `lib/manifest/keys.json`, the file the Go
  side embeds. A string Nix's `builtins.fromJSON` cannot hold (a lone
  UTF-16 surrogate; a NUL, from Nix 2.20 on) fails the manifest's
  evaluation, not the walker: the CLI then evaluates the manifests one
  by one and fails that one alone (lib/nixdriver).

  # Type

  ```
  manifest :: { keys :: AttrSet; entries :: { ... } -> [ Entry ]; }
  ```
*/
let
  inherit (builtins)
    attrNames
    concatMap
    elem
    filter
    fromJSON
    hasAttr
    intersectAttrs
    isAttrs
    isString
    listToAttrs
    match
    readFile
    removeAttrs
    stringLength
    ;

  # Plain data: the string context an installed library's file carries
  # (the package's references, e.g. the programs linked beside the CLI)
  # would make fromJSON refuse it.
  keys = fromJSON (builtins.unsafeDiscardStringContext (readFile ../lib/manifest/keys.json));

  /**
    `names` as a set (`{ <name> = true; }`), for primop lookups
    (hasAttr, intersectAttrs) instead of a list search per key.

    # Inputs

    `names`
    : The keys.

    # Type

    ```
    setOf :: [ string ] -> attrsOf bool
    ```

    # Examples
    :::{.example}
    ## `setOf` usage example

    ```nix
    setOf [ "name" "version" ]
    => { name = true; version = true; }
    ```

    :::
  */
  setOf = names: listToAttrs (map (name: { inherit name; value = true; }) names);
  platformSet = setOf keys.platforms;
  metadataSet = setOf keys.metadata;

  /**
    Whether `name` is a CUDA variant key: cuda12, and from CUDA 13.1's
    cuda_compat a major.minor version, cuda13.1 (lib/manifest's variantName).

    # Type

    ```
    isVariantName :: string -> bool
    ```
  */
  isVariantName =
    name: stringLength name <= maxVariantNameLength && match "cuda[0-9]+(\\.[0-9]+)?" name != null;

  # lib/manifest's bounds, checked before any `match`: Nix's regular
  # expressions run out of stack on strings of some hundred kB.
  maxVariantNameLength = 16;
  maxRelativePathLength = 4096;

  /**
    Whether `p` is a safe relative_path: the same expression as
    lib/manifest's SafeRelativePath, components of the characters a store
    path name can hold, none starting with '.'.

    # Inputs

    `p`
    : The relative_path.

    # Type

    ```
    isSafeRelativePath :: string -> bool
    ```

    # Examples
    :::{.example}
    ## `isSafeRelativePath` usage example

    ```nix
    map isSafeRelativePath [ "p/p-1.tar.xz" "../p.tar.xz" "/p.tar.xz" ]
    => [ true false false ]
    ```

    :::
  */
  isSafeRelativePath =
    p: match "[A-Za-z0-9+_-][A-Za-z0-9+._-]*(/[A-Za-z0-9+_-][A-Za-z0-9+._-]*)*" p != null;

  # lib/manifest's MaxArchiveNameLength: the store path names derived
  # from the file name (<stem>-features.json) stay under Nix's 211.
  maxArchiveNameLength = 180;

  /**
    Whether `v` has the shape of an archive: an object with a safe
    relative_path (a string; a file name of at most maxArchiveNameLength
    characters) and a sha256 of 64 lowercase hex digits. What the
    derivations of an entry read of it, and nothing more: other fields
    are the Go parser's to judge.

    # Inputs

    `v`
    : A value of the manifest.

    # Type

    ```
    isArchive :: Any -> bool
    ```

    # Examples
    :::{.example}
    ## `isArchive` usage example

    ```nix
    map isArchive [
      { relative_path = "p/p.tar.xz"; sha256 = "<64 hex digits>"; }
      { relative_path = "../p.tar.xz"; sha256 = "<64 hex digits>"; }
      "p.tar.xz"
    ]
    => [ true false false ]
    ```

    :::
  */
  isArchive =
    v:
    isAttrs v
    && isString (v.relative_path or null)
    && isString (v.sha256 or null)
    && stringLength v.relative_path <= maxRelativePathLength
    && stringLength v.sha256 == 64
    && isSafeRelativePath v.relative_path
    && stringLength (baseNameOf v.relative_path) <= maxArchiveNameLength
    && match "[0-9a-f]{64}" v.sha256 != null;

  /**
    `v` if it is a string, else `""` (as the Go parser reads a field
    that is absent).

    # Type

    ```
    stringOr :: Any -> string
    ```
  */
  stringOr = v: if isString v then v else "";

  /**
    The entries of one package's release: per platform its archive, and
    its archives per CUDA variant.

    # Inputs

    `package`
    : The package's key.

    `release`
    : The package's object in the manifest.

    # Type

    ```
    releaseEntries :: string -> AttrSet -> [ Entry ]
    ```
  */
  releaseEntries =
    package: release:
    let
      version = stringOr (release.version or null);
      # The index format's releaseInfo, one set shared by the release's
      # entries (a missing field is "", as the Go parser reads it).
      releaseInfo = {
        name = stringOr (release.name or null);
        license = stringOr (release.license or null);
        licensePath = stringOr (release.license_path or null);
        inherit version;
      };
      /**
        The entries of one platform of the release: the value itself when
        it is an archive (v2, `source`; cuDNN 9.27's windows-arm64 beside
        variants), and each of its keys named like a variant whose value
        is an archive (v3). A closure per release rather than a function
        of more arguments: fewer calls per archive, most of what walking
        thousands of them costs.

        # Type

        ```
        platformEntries :: string -> [ Entry ]
        ```
      */
      platformEntries =
        platform:
        let
          value = release.${platform};
          /**
            The entry of an archive of this platform.

            # Type

            ```
            entry :: string | null -> AttrSet -> Entry
            ```
          */
          entry = variant: leaf: {
            inherit
              package
              platform
              variant
              version
              releaseInfo
              ;
            relativePath = leaf.relative_path;
            inherit (leaf) sha256;
          };
          flat = if isArchive value then [ (entry null value) ] else [ ];
        in
        if !(isAttrs value) then
          [ ]
        # The usual archive, no variant beside it: one primop says so.
        else if removeAttrs value keys.leaf == { } then
          flat
        else
          flat
          ++ concatMap (
            variant:
            if isVariantName variant && isArchive value.${variant} then
              [ (entry variant value.${variant}) ]
            else
              [ ]
          ) (attrNames value);
    in
    concatMap platformEntries (attrNames (intersectAttrs platformSet release));
in
{
  inherit keys;

  /**
    The archives a manifest lists, one entry per package × platform × CUDA
    variant, in the order of the manifest's sorted keys. Never an error:
    what is not shaped like an archive is left out (see above).

    # Inputs

    `name`
    : The manifest's name, e.g. `"cuda/redistrib_12.8.0.json"` (unused:
      the walker reports nothing; the Go parser names what it refuses).

    `manifest`
    : The manifest, as `builtins.fromJSON` returns it.

    `platforms`
    : The platforms to keep, e.g. `[ "linux-sbsa" ]`; `null` (the default) keeps all.

    `packages`
    : The packages to keep; `null` (the default) keeps all.

    # Type

    ```
    entries :: {
      name :: string;
      manifest :: Any;
      platforms :: [ string ] | null;
      packages :: [ string ] | null;
    } -> [ Entry ]

    Entry :: {
      package :: string;
      platform :: string;
      variant :: string | null;
      relativePath :: string;
      sha256 :: string;
      version :: string;
      releaseInfo :: ReleaseInfo;
    }

    # The index format's releaseInfo of the entry's release ("" for a
    # field the manifest leaves out); one set per release.
    ReleaseInfo :: {
      name :: string;
      license :: string;
      licensePath :: string;
      version :: string;
    }
    ```

    # Examples
    :::{.example}
    ## `entries` usage example

    ```nix
    entries {
      name = "m";
      manifest.p = {
        version = "1";
        linux-x86_64 = { relative_path = "p.tar.xz"; sha256 = "..."; };
      };
    }
    => [ { package = "p"; platform = "linux-x86_64"; variant = null;
           relativePath = "p.tar.xz"; sha256 = "..."; version = "1";
           releaseInfo = { name = ""; license = ""; licensePath = ""; version = "1"; }; } ]
    ```

    :::
  */
  entries =
    {
      name,
      manifest,
      platforms ? null,
      packages ? null,
    }:
    let
      all =
        if !(isAttrs manifest) then
          [ ]
        else
          concatMap (
            key:
            let
              value = manifest.${key};
            in
            if isAttrs value && !(hasAttr key metadataSet) then releaseEntries key value else [ ]
          ) (attrNames manifest);
    in
    if platforms == null && packages == null then
      all
    else
      filter (
        e:
        (platforms == null || elem e.platform platforms)
        && (packages == null || elem e.package packages)
      ) all;
}
