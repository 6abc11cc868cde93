/**
  A small stand-in for nixpkgs' `lib`: the functions the package files of
  Nixpkgs' cuda-modules use to compute their buildRedist arguments, built
  on builtins, under the same names (top level and `lib.lists`,
  `lib.strings`, `lib.attrsets`, `lib.trivial`, `lib.versions`).
  check-nixpkgs evaluates those files with it when no Nixpkgs checkout is
  given (`--nixpkgs` uses the real `lib` instead). Anything missing fails
  that file's evaluation with Nix's error, and no other file's.

  # Type

  ```
  nixpkgs-lib-standin :: AttrSet
  ```

  # Examples
  :::{.example}
  ## `nixpkgs-lib-standin` usage example

  ```nix
  (import ./nix/nixpkgs-lib-standin.nix).versions.majorMinor "12.8.57"
  => "12.8"
  ```

  :::
*/
let
  inherit (builtins)
    all
    any
    attrNames
    concatLists
    concatMap
    concatStringsSep
    elem
    elemAt
    filter
    foldl'
    genList
    hasAttr
    head
    isList
    length
    listToAttrs
    splitVersion
    stringLength
    substring
    ;
  compareVersions = builtins.compareVersions;
  /**
    The first `n` elements of `l` (all of them when it is shorter), as
    `lib.lists.take`.

    # Type

    ```
    take :: int -> [ a ] -> [ a ]
    ```
  */
  take = count: xs: genList (elemAt xs) (if count < length xs then count else length xs);

  /**
    `lib.lists`: builtins and
    Each function has the name, inputs, type and behaviour of the nixpkgs
    `lib` function it stands in for (see that function's documentation),
    within what cuda-modules' package files use.

    # Type

    ```
    optionals :: bool -> [ a ] -> [ a ]
    optional :: bool -> a -> [ a ]
    flatten :: a | [ a ] -> [ a ]
    unique :: [ a ] -> [ a ]
    subtractLists :: [ a ] -> [ a ] -> [ a ]
    intersectLists :: [ a ] -> [ a ] -> [ a ]
    remove :: a -> [ a ] -> [ a ]
    last :: [ a ] -> a
    findFirst :: (a -> bool) -> a -> [ a ] -> a
    toList :: a | [ a ] -> [ a ]
    ```
  */
  lists = rec {
    inherit
      all
      any
      concatLists
      concatMap
      elem
      elemAt
      filter
      foldl'
      head
      length
      take
      ;
    inherit (builtins) map tail;
    optionals = keep: xs: if keep then xs else [ ];
    optional = keep: v: optionals keep [ v ];
    flatten = v: if isList v then concatMap flatten v else [ v ];
    unique = xs: foldl' (kept: v: kept ++ optional (!(elem v kept)) v) [ ] xs;
    subtractLists = drop: xs: filter (v: !(elem v drop)) xs;
    intersectLists = keepOnly: xs: filter (v: elem v keepOnly) xs;
    remove = unwanted: xs: filter (v: v != unwanted) xs;
    last = xs: elemAt xs (length xs - 1);
    findFirst = pred: default: l: let m = filter pred l; in if m == [ ] then default else head m;
    toList = v: if isList v then v else [ v ];
  };

  /**
    `lib.strings`: builtins and
    Each function has the name, inputs, type and behaviour of the nixpkgs
    `lib` function it stands in for (see that function's documentation),
    within what cuda-modules' package files use.

    # Type

    ```
    optionalString :: bool -> string -> string
    hasPrefix :: string -> string -> bool
    hasSuffix :: string -> string -> bool
    concatMapStringsSep :: string -> (a -> string) -> [ a ] -> string
    concatStrings :: [ string ] -> string
    makeSearchPath :: string -> [ path | null ] -> string
    makeBinPath :: [ derivation ] -> string
    makeLibraryPath :: [ derivation ] -> string
    versionAtLeast :: string -> string -> bool
    versionOlder :: string -> string -> bool
    ```
  */
  strings = rec {
    inherit concatStringsSep stringLength substring;
    inherit (builtins) toString replaceStrings;
    optionalString = keep: s: if keep then s else "";
    hasPrefix = p: s: substring 0 (stringLength p) s == p;
    hasSuffix =
      suffix: s:
      let
        ls = stringLength s;
        lx = stringLength suffix;
      in
      lx <= ls && substring (ls - lx) lx s == suffix;
    concatMapStringsSep = sep: f: xs: concatStringsSep sep (map f xs);
    concatStrings = concatStringsSep "";
    makeSearchPath =
      sub: paths: concatStringsSep ":" (map (p: "${p}/${sub}") (filter (p: p != null) paths));
    makeBinPath = ps: makeSearchPath "bin" (map (attrsets.getOutput "bin") ps);
    makeLibraryPath = ps: makeSearchPath "lib" (map (attrsets.getOutput "lib") ps);
    versionAtLeast = v1: v2: compareVersions v1 v2 >= 0;
    versionOlder = v1: v2: compareVersions v2 v1 > 0;
  };

  /**
    `lib.attrsets`: builtins and
    Each function has the name, inputs, type and behaviour of the nixpkgs
    `lib` function it stands in for (see that function's documentation),
    within what cuda-modules' package files use.

    # Type

    ```
    optionalAttrs :: bool -> AttrSet -> AttrSet
    genAttrs :: [ string ] -> (string -> a) -> attrsOf a
    filterAttrs :: (string -> a -> bool) -> attrsOf a -> attrsOf a
    getOutput :: string -> derivation -> derivation
    getLib, getDev, getBin, getInclude, getStatic, getMan :: derivation -> derivation
    ```
  */
  attrsets = rec {
    inherit attrNames hasAttr listToAttrs;
    inherit (builtins) attrValues mapAttrs;
    optionalAttrs = keep: attrs: if keep then attrs else { };
    genAttrs =
      names: f:
      listToAttrs (
        map (n: {
          name = n;
          value = f n;
        }) names
      );
    filterAttrs =
      pred: set:
      listToAttrs (
        concatMap (
          n:
          if pred n set.${n} then
            [
              {
                name = n;
                value = set.${n};
              }
            ]
          else
            [ ]
        ) (attrNames set)
      );
    # A package someone already chose an output of stays as it is;
    # otherwise the named output, else out, else the package itself.
    getOutput =
      name: drv: if drv.outputSpecified or false then drv else drv.${name} or drv.out or drv;
    getLib = getOutput "lib";
    getDev = getOutput "dev";
    getBin = getOutput "bin";
    getInclude = getOutput "include";
    getStatic = getOutput "static";
    getMan = getOutput "man";
  };

  /**
    `lib.versions`:
    Each function has the name, inputs, type and behaviour of the nixpkgs
    `lib` function it stands in for (see that function's documentation),
    within what cuda-modules' package files use.

    # Type

    ```
    major, minor, patch, majorMinor :: string -> string
    ```

    # Examples
    :::{.example}
    ## `versions.majorMinor` usage example

    ```nix
    versions.majorMinor "12.8.57"
    => "12.8"
    ```

    :::
  */
  versions =
    let
      part = i: version: elemAt (splitVersion version) i;
    in
    {
      major = part 0;
      minor = part 1;
      patch = part 2;
      majorMinor =
        version:
        let
          parts = splitVersion version;
        in
        if length parts < 2 then version else "${elemAt parts 0}.${elemAt parts 1}";
    };

  /**
    `lib.trivial`:
    Each function has the name, inputs, type and behaviour of the nixpkgs
    `lib` function it stands in for (see that function's documentation),
    within what cuda-modules' package files use.
    `warn` drops its message (a stand-in has no one to warn).

    # Type

    ```
    id :: a -> a
    const :: a -> b -> a
    flip :: (a -> b -> c) -> b -> a -> c
    pipe :: a -> [ (a -> a) ] -> a
    mapNullable :: (a -> b) -> a | null -> b | null
    defaultTo :: a -> a | null -> a
    warn :: string -> a -> a
    ```
  */
  trivial = rec {
    id = v: v;
    const = v: _: v;
    flip = f: second: first: f first second;
    pipe = start: fns: foldl' (acc: fn: fn acc) start fns;
    mapNullable = f: v: if v == null then null else f v;
    defaultTo = fallback: v: if v == null then fallback else v;
    warn = _: x: x;
    inherit (strings) versionAtLeast versionOlder;
  };

  /**
    As nixpkgs' lib.customisation.extendMkDerivation, without the
    overriding machinery: extendDrvArgs sees the caller's arguments and
    wins over them.

    # Inputs

    `constructDrv`
    : The derivation constructor to wrap (buildRedist's stand-in).

    `extendDrvArgs`
    : `finalAttrs: args: { ... }`, the attributes added to the caller's.

    `fpargs`
    : The caller's arguments, or a function of `finalAttrs` giving them.

    # Type

    ```
    extendMkDerivation :: {
      constructDrv :: (AttrSet -> AttrSet) -> a;
      extendDrvArgs :: AttrSet -> AttrSet -> AttrSet;
    } -> (AttrSet | (AttrSet -> AttrSet)) -> a
    ```
  */
  extendMkDerivation =
    { constructDrv, extendDrvArgs, ... }:
    fpargs:
    constructDrv (
      finalAttrs:
      let
        args = if builtins.isFunction fpargs then fpargs finalAttrs else fpargs;
      in
      args // extendDrvArgs finalAttrs args
    );

  /**
    An error for a part of lib the stand-in lacks. Only ever reached
    through `meta`, which check-nixpkgs never forces.

    # Inputs

    `what`
    : The attribute's name under `lib`.

    # Type

    ```
    unavailable :: string -> never
    ```
  */
  unavailable =
    what:
    throw (
      "check-nixpkgs lib stand-in: lib.${what} is not available "
      + "(pass --nixpkgs to use the real lib)"
    );
in
lists
// strings
// attrsets
// trivial
// {
  inherit
    lists
    strings
    attrsets
    trivial
    versions
    ;
  inherit extendMkDerivation;
  customisation = { inherit extendMkDerivation; };
  /**
    As `lib.getExe`, `lib.getName` and `lib.fix`.

    # Type

    ```
    getExe :: derivation -> string
    getName :: derivation -> string
    fix :: (a -> a) -> a
    ```
  */
  getExe = x: "${attrsets.getBin x}/bin/${x.meta.mainProgram or x.pname or x.name}";
  getName = x: x.pname or x.name;
  fix = f: let fixed = f fixed; in fixed;
  licenses = unavailable "licenses";
  maintainers = unavailable "maintainers";
  teams = unavailable "teams";
  platforms = unavailable "platforms";
  sourceTypes = unavailable "sourceTypes";
}
