/**
  Walking NVIDIA redistributable manifests in Nix.

  The known keys come from `lib/manifest/keys.json`, the file the Go side
  (`lib/manifest`) embeds: both sides accept exactly the same manifests.
  An unknown key, a value of the wrong type, an unsafe `relative_path`
  (absolute, `..`, characters a store path name cannot hold) or a bad
  sha256 is an evaluation error (`throw`, so `tryEval` sees it) that names
  the manifest, package and key, as the Go parser's errors do.

  This walker is the one place a manifest's archives are listed: the
  pipeline's derivations and the aggregate's structured attributes (each
  archive, and each package's `releaseInfo`) come from its entries.

  Duplicate keys cannot be seen here: `builtins.fromJSON` keeps the last.
  The Go side refuses them (`manifest.CheckJSON`): the CLI validates every
  manifest with it before evaluating, and the aggregate derivation's
  builder validates the manifest with it (without listing its archives
  again), so `nix build` of a manifest with duplicates fails there,
  naming the key.

  # Type

  ```
  manifest :: { keys :: AttrSet; entries :: { ... } -> [ Entry ]; }
  ```
*/
let
  inherit (builtins)
    all
    attrNames
    attrValues
    concatMap
    elem
    filter
    fromJSON
    hasAttr
    intersectAttrs
    isAttrs
    isList
    isString
    listToAttrs
    match
    readFile
    removeAttrs
    stringLength
    throw
    typeOf
    ;

  # Plain data: the string context an installed library's file carries
  # (the package's references, e.g. the programs linked beside the CLI)
  # would make fromJSON refuse it.
  keys = fromJSON (builtins.unsafeDiscardStringContext (readFile ../lib/manifest/keys.json));

  /**
    `names` as a set (`{ <name> = true; }`). The known keys are made sets
    once: per-entry checks are then primop calls (removeAttrs, hasAttr,
    intersectAttrs) rather than a Nix function call per key, which is most
    of what walking thousands of entries costs.

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
  releaseStringSet = setOf releaseStrings;
  leafSet = setOf keys.leaf;
  releaseStrings = [
    "name"
    "license"
    "license_path"
    "version"
  ];

  /**
    Whether `name` is a CUDA variant key: cuda12, and from CUDA 13.1's
    cuda_compat a major.minor version, cuda13.1 (lib/manifest's variantName).

    # Type

    ```
    isVariantName :: string -> bool
    ```
  */
  isVariantName = name: match "cuda[0-9]+(\\.[0-9]+)?" name != null;

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
  maxArchiveNameLength = 180;

  /**
    Whether `s` is a sha256 as manifests write it: 64 lowercase hex digits.

    # Type

    ```
    isSha256 :: string -> bool
    ```
  */
  isSha256 = s: match "[0-9a-f]{64}" s != null;

  /**
    `value` itself when each of its fields in `names` is a string (every
    field the Go parser reads must be a string there too); otherwise an
    error naming `where` and the first such field that is not. The fast
    path checks all of them at once, the slow one (only on error) finds the
    first bad one in `names`' order.

    # Inputs

    `where`
    : The place for the error message, e.g. `"manifest m: package p"`.

    `names`
    : The fields that must be strings where present.

    `nameSet`
    : `names` as a set (`setOf names`).

    `value`
    : The object to check.

    # Type

    ```
    requireStrings :: string -> [ string ] -> attrsOf bool -> AttrSet -> AttrSet
    ```
  */
  requireStrings =
    where: names: nameSet: value:
    let
      bad = filter (k: hasAttr k value && !(isString value.${k})) names;
    in
    if all isString (attrValues (intersectAttrs nameSet value)) then
      value
    else
      throw "${where}: ${builtins.head bad} is ${typeOf value.${builtins.head bad}}, not a string";

  /**
    An archive object (a leaf of the manifest) checked field by field:
    itself, or an error naming `where` and the first thing wrong (an
    unknown field, no or an unsafe relative_path, a file name over
    maxArchiveNameLength, a bad sha256).

    # Inputs

    `where`
    : The place for the error message.

    `value`
    : The archive object.

    # Type

    ```
    leafOf :: string -> AttrSet -> AttrSet
    ```
  */
  leafOf =
    where: value:
    let
      unknown = attrNames (removeAttrs value keys.leaf);
      checked = requireStrings where keys.leaf leafSet value;
      path = checked.relative_path or "";
      sha = checked.sha256 or "";
    in
    if unknown != [ ] then
      throw "${where}: unknown archive field \"${builtins.head unknown}\""
    else if path == "" then
      throw "${where}: no relative_path"
    else if !(isSafeRelativePath path) then
      throw (
        "${where}: relative_path \"${path}\" is unsafe: "
        + "want components of [A-Za-z0-9+._-], none starting with '.'"
      )
    else if stringLength (baseNameOf path) > maxArchiveNameLength then
      throw (
        "${where}: relative_path \"${path}\": "
        + "file name longer than ${toString maxArchiveNameLength} characters"
      )
    else if !(isSha256 sha) then
      throw "${where}: sha256 \"${sha}\" is not 64 lowercase hex digits"
    else
      checked;

  /**
    Whether an archive object passes all of leafOf's checks, as one
    expression of primop calls: the path every good archive takes. Only
    when it is false does leafOf run the checks one by one, for the message.

    # Inputs

    `value`
    : The archive object.

    # Type

    ```
    goodLeaf :: AttrSet -> bool
    ```
  */
  goodLeaf =
    value:
    removeAttrs value keys.leaf == { }
    && all isString (attrValues (intersectAttrs leafSet value))
    && isSafeRelativePath (value.relative_path or "")
    && stringLength (baseNameOf value.relative_path) <= maxArchiveNameLength
    && isSha256 (value.sha256 or "");

  /**
    The entries of one package's release: per platform its archive, or per
    CUDA variant its archives, checked as the Go parser checks them.

    # Inputs

    `where`
    : The manifest's place for error messages, e.g. `"manifest m"`.

    `package`
    : The package's key.

    `release0`
    : The package's object in the manifest.

    # Type

    ```
    releaseEntries :: string -> string -> AttrSet -> [ Entry ]
    ```
  */
  releaseEntries =
    where: package: release0:
    let
      at = "${where}: package ${package}";
      release = requireStrings at releaseStrings releaseStringSet release0;
      inherit (release) version;
      # The index format's releaseInfo, one set shared by the release's
      # entries (a missing field is "", as the Go parser reads it).
      releaseInfo = {
        name = release.name or "";
        license = release.license or "";
        licensePath = release.license_path or "";
        inherit version;
      };
      platforms = attrNames (removeAttrs release keys.release);
      cv = release.cuda_variant or null;
      variants =
        if cv == null then
          null
        else if !(isList cv) then
          throw "${at}: cuda_variant is not a list"
        else if !(all isString cv) then
          throw "${at}: cuda_variant holds a non-string"
        else
          map (x: "cuda${x}") cv;

      /**
        The entries of one platform of the release. A closure per release
        rather than a function of five arguments: one call per platform.

        # Type

        ```
        platformEntries :: string -> [ Entry ]
        ```
      */
      platformEntries =
        platform:
        let
          value = release.${platform};
          pat = "${at}: platform ${platform}";
          /**
            The entry of one checked archive object.

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
          # Beside relative_path, the keys named like a variant are
          # variants and the rest the archive without a variant (cuDNN
          # 9.27's windows-arm64 holds both); without it, all are variants.
          flat = hasAttr "relative_path" value;
          variantKeys =
            if !flat then
              attrNames value
            else if removeAttrs value keys.leaf == { } then
              [ ]
            else
              filter isVariantName (attrNames value);
          leaf = removeAttrs value variantKeys;
        in
        if !(isAttrs value) then
          throw "${pat}: not an object"
        else
          (if flat then [ (entry null (if goodLeaf leaf then leaf else leafOf pat leaf)) ] else [ ])
          ++ map (
            variant:
            let
              v = value.${variant};
              vat = "${pat}: variant ${variant}";
            in
            if !(isVariantName variant) then
              throw "${vat}: unknown key (neither an archive field nor a cudaNN variant)"
            else if variants != null && !(elem variant variants) then
              throw "${vat}: not listed in cuda_variant"
            else if !(isAttrs v) then
              throw "${vat}: is ${typeOf v}, not an object"
            else
              entry variant (if goodLeaf v then v else leafOf vat v)
          ) variantKeys;
    in
    if (release.version or "") == "" then
      throw "${at}: no version"
    else
      # cuda_variant is checked even when no platform has variants, as Go does.
      builtins.seq variants concatMap (
        platform:
        if hasAttr platform platformSet then
          platformEntries platform
        else
          throw "${at}: unknown key \"${platform}\" (not a known platform or release field)"
      ) platforms;
in
{
  inherit keys;

  /**
    The archives a manifest lists, one entry per package × platform × CUDA
    variant, in the order of the manifest's sorted keys.

    # Inputs

    `name`
    : The manifest's name for error messages, e.g. `"cuda/redistrib_12.8.0.json"`.

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
      manifest :: AttrSet;
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
      all = concatMap (
        key:
        let
          value = manifest.${key};
        in
        if elem key keys.metadata then
          (
            if isString value then
              [ ]
            else
              throw "manifest ${name}: ${key} is ${typeOf value}, not a string"
          )
        else if isAttrs value then
          releaseEntries "manifest ${name}" key value
        else
          throw "manifest ${name}: unknown top-level key \"${key}\""
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
