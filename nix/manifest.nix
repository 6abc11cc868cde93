/**
  Walking NVIDIA redistributable manifests in Nix.

  The known keys come from `lib/manifest/keys.json`, the file the Go side
  (`lib/manifest`) embeds: both sides accept exactly the same manifests.
  An unknown key is an evaluation error that names the manifest and key.
*/
let
  inherit (builtins)
    attrNames
    concatMap
    elem
    filter
    fromJSON
    hasAttr
    isAttrs
    match
    readFile
    throw
    ;

  keys = fromJSON (readFile ../lib/manifest/keys.json);

  isVariantName = name: match "cuda[0-9]+" name != null;

  leafOf =
    where: value:
    let
      unknown = filter (k: !(elem k keys.leaf)) (attrNames value);
    in
    if unknown != [ ] then
      throw "${where}: unknown archive field \"${builtins.head unknown}\""
    else if !(hasAttr "relative_path" value) || !(hasAttr "sha256" value) then
      throw "${where}: an archive needs relative_path and sha256"
    else
      value;

  platformEntries =
    where: package: release: platform:
    let
      value = release.${platform};
      at = "${where}: package ${package}: platform ${platform}";
      entry = variant: leaf: {
        inherit package platform variant;
        relativePath = leaf.relative_path;
        inherit (leaf) sha256;
        version = release.version;
      };
    in
    if !(isAttrs value) then
      throw "${at}: not an object"
    else if hasAttr "relative_path" value then
      [ (entry null (leafOf at value)) ]
    else
      map (
        variant:
        if isVariantName variant then
          entry variant (leafOf "${at}: variant ${variant}" value.${variant})
        else
          throw "${at}: unknown key \"${variant}\" (neither an archive field nor a cudaNN variant)"
      ) (attrNames value);

  releaseEntries =
    where: package: release:
    let
      platforms = filter (k: !(elem k keys.release)) (attrNames release);
    in
    concatMap (
      platform:
      if elem platform keys.platforms then
        platformEntries where package release platform
      else
        throw "${where}: package ${package}: unknown key \"${platform}\" (not a known platform or release field)"
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

    `platforms`, `packages`
    : Optional lists to select entries; `null` (the default) keeps all.

    # Type

    ```
    entries :: { name :: String, manifest :: AttrSet, platforms :: [String]?, packages :: [String]? }
            -> [ { package, platform, variant :: String?, relativePath, sha256, version } ]
    ```

    # Examples

    ```nix
    entries { name = "m"; manifest = { p = { version = "1"; linux-x86_64 = { relative_path = "p.tar.xz"; sha256 = "..."; }; }; }; }
    => [ { package = "p"; platform = "linux-x86_64"; variant = null; relativePath = "p.tar.xz"; sha256 = "..."; version = "1"; } ]
    ```
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
          [ ]
        else if isAttrs value then
          releaseEntries "manifest ${name}" key value
        else
          throw "manifest ${name}: unknown top-level key \"${key}\""
      ) (attrNames manifest);
    in
    filter (
      e:
      (platforms == null || elem e.platform platforms) && (packages == null || elem e.package packages)
    ) all;
}
