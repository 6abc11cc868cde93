/**
  Evaluates Nixpkgs' cuda-modules package files (`packages/<pname>.nix`,
  each a function calling `buildRedist`) with a stand-in `buildRedist`
  that returns its arguments, for each case (platform, CUDA version,
  manifest) asked for. No nixpkgs is needed: `lib` is
  `./nixpkgs-lib-standin.nix`, or the real one of a Nixpkgs checkout
  (`nixpkgsLib`), and every other argument is a stand-in. An argument
  the stand-in does not know stands for a package named after itself
  (`libcublas`, `zlib`, `autoPatchelfHook`), unless the file gives it a
  default.

  Everything comes from one JSON file (`request`, a path as a string), so
  no path or name is ever spliced into Nix source:

  ```
  { dir, files :: [ String ], nixpkgsLib :: String | null, withDeps :: Bool,
    allowed :: [ String ],
    cases :: [ { platform, cudaVersion, redistName, releases :: { <pname> = version; } } ] }
  ```

  The caller runs this under Nix's restricted mode, reading only the
  `allowed` paths (this file, the stand-in lib, the request, the package
  directory, the checkout's lib/). A package file is imported with
  `scopedImport` into a scope whose builtins refuse, with `abort` (which
  `tryEval` does not catch), what restricted mode would let through
  quietly or what a package file has no business doing: reading the
  environment or the time, fetching, `exec`, `storePath`, `<...>` lookups,
  `pathExists` outside `allowed`. Its own imports get the same scope.

  Result: `{ <file> = [ <one per case> ]; }`, each
  `{ buildRedist = false; }` (the file does not call buildRedist),
  `{ skip = true; redistName; }` (another redist's case), or
  `{ pname, redistName, version, outputs, includeRemoveStubsFromRunpathHook,
     allowFHSReferences, buildInputs?, propagatedBuildInputs?,
     autoPatchelfIgnoreMissingDeps?, appendRunpaths?, runtimeDependencies? }`
  with inputs as package names, appendRunpaths as the strings it holds
  (a stand-in package interpolates to its fake store path, which names it).

  A file that fails to evaluate (missing attribute, throw, type error,
  syntax error) fails the whole nix-instantiate: `tryEval` catches none of
  them but `throw` and `assert`. The caller (lib/check/pkgeval) therefore runs
  a failing request again file by file and case by case.

  # Inputs

  `request`
  : The path (a string) of the request JSON described above.

  # Type

  ```
  buildredist-standin :: { request :: string; } -> attrsOf [ AttrSet ]
  ```

  # Examples
  :::{.example}
  ## `buildredist-standin` usage example

  ```nix
  import ./nix/buildredist-standin.nix { request = "/tmp/request.json"; }
  => { "cuda_cudart.nix" = [ { pname = "cuda_cudart"; redistName = "cuda"; ... } ]; }
  ```

  :::
*/
{ request }:
let
  req = builtins.fromJSON (builtins.readFile request);
  inherit (builtins)
    attrNames
    concatMap
    filter
    functionArgs
    isAttrs
    isBool
    isFunction
    isList
    isString
    listToAttrs
    ;

  /**
    Aborts: what a package file sees instead of Nix's builtins (see the top)
    refuses with this, naming `what` it may not do.

    # Type

    ```
    refuse :: string -> never
    ```
  */
  refuse = what: abort "package files may not ${what}";
  /**
    The absolute path `p` stands for, as a string (no context).

    # Type

    ```
    canonical :: path | string -> string
    ```
  */
  canonical = p: toString (/. + builtins.unsafeDiscardStringContext (toString p));
  /**
    Whether `p` is one of the request's `allowed` paths or under one.

    # Type

    ```
    isAllowed :: path | string -> bool
    ```
  */
  isAllowed =
    p:
    let
      s = canonical p;
    in
    builtins.any (
      r: s == r || builtins.substring 0 (builtins.stringLength r + 1) s == r + "/"
    ) req.allowed;
  /**
    The guarded fetcher `builtins.<name>`: refuses whatever it is given.

    # Type

    ```
    fetching :: string -> a -> never
    ```
  */
  fetching = name: _: refuse "fetch anything (builtins.${name})";
  guardedBuiltins = builtins // {
    builtins = guardedBuiltins;
    getEnv = _: refuse "read the environment (builtins.getEnv)";
    currentTime = refuse "read the time (builtins.currentTime)";
    currentSystem = refuse (
      "read the evaluating machine's system (builtins.currentSystem); "
      + "the case's is stdenv.hostPlatform.system"
    );
    fetchurl = fetching "fetchurl";
    fetchTarball = fetching "fetchTarball";
    fetchGit = fetching "fetchGit";
    fetchMercurial = fetching "fetchMercurial";
    fetchTree = fetching "fetchTree";
    # Restricted mode does not check what a flake reads.
    getFlake = fetching "getFlake";
    fetchClosure = fetching "fetchClosure";
    exec = _: refuse "run programs (builtins.exec)";
    storePath = _: refuse "reach into the Nix store (builtins.storePath)";
    pathExists =
      p:
      if isAllowed p then
        builtins.pathExists p
      else
        refuse "look outside the package files and lib/ (builtins.pathExists ${canonical p})";
    # Restricted mode on Nix 2.26 and 2.34 (not 2.8) lets readDir list a parent of
    # an allowed path (the entries on the way to the allowed paths):
    # names of this machine's directories, refused here as on Nix 2.8.
    readDir =
      p:
      if isAllowed p then
        builtins.readDir p
      else
        refuse "look outside the package files and lib/ (builtins.readDir ${canonical p})";
    findFile = _: name: refuse "look up <${name}> (only the files given are read)";
    import = guardedImport;
    scopedImport = attrs: builtins.scopedImport (scope // attrs);
  }
  // (
    # Nix 2.14 and later: like readDir, it answers for a parent of an
    # allowed path.
    if builtins ? readFileType then
      {
        readFileType =
          p:
          if isAllowed p then
            builtins.readFileType p
          else
            refuse "look outside the package files and lib/ (builtins.readFileType ${canonical p})";
      }
    else
      { }
  );
  # The names Nix also binds outside builtins (__getEnv, fetchTarball,
  # import, and __findFile, which <name> calls).
  scope = {
    builtins = guardedBuiltins;
    inherit (guardedBuiltins)
      import
      scopedImport
      fetchTarball
      fetchGit
      fetchMercurial
      fetchTree
      ;
    __getEnv = guardedBuiltins.getEnv;
    __currentTime = guardedBuiltins.currentTime;
    __currentSystem = guardedBuiltins.currentSystem;
    __fetchurl = guardedBuiltins.fetchurl;
    __exec = guardedBuiltins.exec;
    __storePath = guardedBuiltins.storePath;
    __pathExists = guardedBuiltins.pathExists;
    __readDir = guardedBuiltins.readDir;
    __findFile = guardedBuiltins.findFile;
  };
  guardedImport = builtins.scopedImport scope;

  # lib too sees the guarded builtins: a package file reaches the
  # environment no more through lib.maybeEnv than through builtins.getEnv.
  lib =
    if req.nixpkgsLib or null != null then
      guardedImport (/. + req.nixpkgsLib)
    else
      guardedImport ./nixpkgs-lib-standin.nix;

  /**
    A package argument: an attribute set that is its own every output
    (`lib.getLib x` is `x`), interpolates to a fake store path, and can be
    called or overridden (returning itself), so a file that only passes it
    around evaluates.

    # Inputs

    `name`
    : The package's name (what it stands for).

    # Type

    ```
    package :: string -> AttrSet
    ```
  */
  package =
    name:
    let
      self = {
        type = "derivation";
        __crffPackage = name;
        inherit name;
        pname = name;
        version = "0";
        outPath = "/nix/store/00000000000000000000000000000000-${name}";
        drvPath = "/nix/store/00000000000000000000000000000000-${name}.drv";
        outputs = [ "out" ];
        outputName = "out";
        outputSpecified = false;
        meta = {
          available = true;
          broken = false;
          mainProgram = name;
        };
        passthru = { };
        override = _: self;
        overrideAttrs = _: self;
        __functor = s: _: s;
      }
      // listToAttrs (
        map
          (o: {
            name = o;
            value = self;
          })
          [
            "out"
            "lib"
            "dev"
            "bin"
            "include"
            "static"
            "stubs"
            "doc"
            "samples"
            "python"
            "man"
          ]
      );
    in
    self;

  /**
    A package set argument (`qt6.qtwayland`) named `name`: each of `names`
    asked for is a package.

    # Type

    ```
    packageSet :: string -> [ string ] -> AttrSet
    ```
  */
  packageSet =
    name: names:
    listToAttrs (
      map (n: {
        name = n;
        value = package n;
      }) names
    )
    // {
      __crffPackage = name;
    };

  /**
    The dotted paths a file's text selects from each name (`qt6.qtbase.qtPluginPrefix`
    gives qt6 → [ [ "qtbase" "qtPluginPrefix" ] ]), so a package or package
    set argument has every member the file asks of it (`gst_all_1.gstreamer`,
    `xorg.libXcursor`, `qt6.qtdeclarative`) without the stand-in listing
    Nixpkgs' scopes. Quoted members (`x."a b"`) are not seen; they are rare.

    # Inputs

    `text`
    : A package file's source text.

    # Type

    ```
    selections :: string -> attrsOf [ [ string ] ]
    ```
  */
  selections =
    text:
    let
      ident = "[A-Za-z_][A-Za-z0-9_'-]*";
      found = filter isList (builtins.split "(${ident})((\\.${ident})+)" text);
      paths = map (m: {
        head = builtins.elemAt m 0;
        tail = filter (s: isString s && s != "") (builtins.split "\\." (builtins.elemAt m 1));
      }) found;
    in
    builtins.mapAttrs (_: ps: map (p: p.tail) ps) (builtins.groupBy (p: p.head) paths);

  /**
    `base`, with each of `paths`' missing attributes added as packages
    named after the member; what base has is kept.

    # Inputs

    `base`
    : A package or package set argument.

    `paths`
    : The member paths the file selects (`selections`).

    # Type

    ```
    withMembers :: AttrSet -> [ [ string ] ] -> AttrSet
    ```
  */
  withMembers =
    base: paths:
    if !(isAttrs base) || paths == [ ] then
      base
    else
      base
      // builtins.mapAttrs (
        name: ps:
        withMembers (base.${name} or (package name)) (filter (p: p != [ ]) (map builtins.tail ps))
      ) (builtins.groupBy builtins.head (filter (p: p != [ ]) paths));

  nixSystemOf = {
    linux-x86_64 = "x86_64-linux";
    linux-sbsa = "aarch64-linux";
    linux-aarch64 = "aarch64-linux";
  };

  /**
    The arguments a package file gets for one case: stdenv, the CUDA
    package set's configuration and packages, all stand-ins.

    # Inputs

    `case`
    : One of the request's `cases`: platform, cudaVersion, redistName, releases.

    # Type

    ```
    standins :: Case -> AttrSet
    ```
  */
  standins =
    case:
    let
      hostNixSystem = nixSystemOf.${case.platform} or "x86_64-linux";
      isJetson = case.platform == "linux-aarch64";
      hostPlatform = {
        system = hostNixSystem;
        isx86_64 = hostNixSystem == "x86_64-linux";
        isAarch64 = hostNixSystem == "aarch64-linux";
        isLinux = true;
        isDarwin = false;
        isWindows = false;
      };
      cudaMajorVersion = lib.versions.major case.cudaVersion;
      cudaMajorMinorVersion = lib.versions.majorMinor case.cudaVersion;
      cc = package "gcc" // {
        cc = package "gcc-unwrapped";
        libcxx = null;
        isClang = false;
        isGNU = true;
      };
      stdenv = {
        inherit hostPlatform cc;
        buildPlatform = hostPlatform;
        targetPlatform = hostPlatform;
        isLinux = true;
        isDarwin = false;
        mkDerivation = package "mkDerivation";
      };
      cudaCapabilities =
        if isJetson then
          [ "8.7" ]
        else
          [
            "7.5"
            "8.0"
            "8.6"
            "8.9"
            "9.0"
            "10.0"
            "12.0"
          ];
    in
    {
      inherit lib stdenv cudaMajorVersion cudaMajorMinorVersion;
      inherit (case) cudaVersion;
      buildRedist = buildRedist case;
      cudaAtLeast = lib.versionAtLeast case.cudaVersion;
      cudaOlder = lib.versionOlder case.cudaVersion;
      cudaNamePrefix = "cuda${cudaMajorMinorVersion}";
      redistSystem = case.platform;
      backendStdenv = stdenv // {
        hostRedistSystem = case.platform;
        inherit hostNixSystem cudaCapabilities cudaMajorVersion;
        hasJetsonCudaCapability = isJetson;
        requestedCapabilities = cudaCapabilities;
      };
      flags = {
        isJetsonBuild = isJetson;
        inherit cudaCapabilities;
        cmakeCudaArchitecturesString = builtins.concatStringsSep ";" (
          map (c: builtins.replaceStrings [ "." ] [ "" ] c) cudaCapabilities
        );
        gencodeString = "";
        gencode = [ ];
      };
      _cuda = {
        lib = {
          licenses = { };
          _mkMissingPackagesAssertions =
            attrs:
            map (name: {
              message = "package argument ${name} is null";
              assertion = attrs.${name} != null;
            }) (attrNames attrs);
          _mkMetaBroken = _: false;
          _mkMetaBadPlatforms = _: [ ];
          _mkCudaVariant = v: "cuda${lib.versions.major v}";
        };
      };
      # Newer package files take the package set's configuration as one set.
      cudaConfig = {
        inherit cudaCapabilities;
        hostRedistSystem = case.platform;
        inherit hostNixSystem;
      };
      config = {
        cudaSupport = true;
        allowUnfree = true;
      };
      callPackage = _: _: package "callPackage";
      qt6 = packageSet "qt6" [
        "qtwayland"
        "qtwebview"
        "qtwebengine"
        "qtbase"
        "qtsvg"
        "wrapQtAppsHook"
        "full"
      ];
      python3Packages = packageSet "python3Packages" [ "python" "pip" "setuptools" "wheel" ];
      buildPackages = packageSet "buildPackages" [ "mpi" "cmake" "python3" ];
      pkgs = { };
    };

  /**
    buildRedist's own argument handling: a set, or a function of the final
    attributes (finalAttrs), whose version is the manifest's.

    # Type

    ```
    buildRedist :: Case -> (AttrSet | (AttrSet -> AttrSet)) -> AttrSet
    ```
  */
  buildRedist =
    case: arg:
    let
      attrs = if isFunction arg then arg final else arg;
      version = case.releases.${attrs.pname} or "0-unsupported";
      final = attrs // {
        inherit version;
        outputs = attrs.outputs or [ "out" ];
        name = "cuda${case.cudaVersion}-${attrs.pname}-${version}";
        src = package "src";
        finalPackage = package attrs.pname;
        passthru = attrs.passthru or { } // {
          inherit (attrs) redistName;
          release = { inherit version; };
          brokenAssertions = attrs.brokenAssertions or [ ];
          platformAssertions = attrs.platformAssertions or [ ];
        };
      };
    in
    {
      __crffBuildRedist = true;
      inherit attrs version;
    };

  /**
    The names build inputs stand for (`null`s and non-packages dropped).

    # Type

    ```
    inputNames :: [ AttrSet | null ] -> [ string ]
    ```
  */
  inputNames =
    xs:
    concatMap (
      x:
      if isList x then
        inputNames x
      else if isAttrs x && x ? __crffPackage then
        [ x.__crffPackage ]
      else if isAttrs x && (x ? pname || x ? name) then
        [ (x.pname or x.name) ]
      else
        [ ]
    ) xs;

  /**
    The strings of an appendRunpaths list (nested lists, from
    `lib.optionals`, flattened); anything else left out.

    # Type

    ```
    runpathStrings :: [Any] -> [String]
    ```
  */
  runpathStrings =
    xs:
    concatMap (
      x:
      if isList x then
        runpathStrings x
      else if isString x then
        [ x ]
      else
        [ ]
    ) (if isList xs then xs else [ xs ]);

  /**
    `v` when `ok v`: a value of the wrong type fails this file's evaluation,
    with a message naming the argument, rather than the reading of the results.

    # Inputs

    `name`
    : The buildRedist argument.

    `ok`
    : The type test.

    `v`
    : The value.

    # Type

    ```
    typed :: string -> (a -> bool) -> a -> a
    ```
  */
  typed =
    name: ok: v:
    if ok v then
      v
    else
      throw "buildRedist argument ${name} has the wrong type (${builtins.typeOf v})";

  /**
    The result for one package file and one case (see the top).

    # Inputs

    `file`
    : The package file's name in `dir`.

    `case`
    : One of the request's `cases`.

    # Type

    ```
    evalCase :: string -> Case -> AttrSet
    ```
  */
  evalCase =
    file:
    let
      path = /. + req.dir + "/${file}";
      selected = selections (builtins.readFile path);
      fn = guardedImport path;
    in
    case:
    let
      given = standins case;
      declared = functionArgs fn;
      # An argument with a default the stand-ins do not provide keeps its
      # default. Package sets and packages get the members the file selects.
      isScope = name: given ? ${name} && given.${name} ? __crffPackage;
      args = listToAttrs (
        concatMap (
          name:
          if isScope name then
            [ { inherit name; value = withMembers given.${name} (selected.${name} or [ ]); } ]
          else if given ? ${name} then
            [ { inherit name; value = given.${name}; } ]
          else if declared.${name} then
            [ ]
          else
            [ { inherit name; value = withMembers (package name) (selected.${name} or [ ]); } ]
        ) (attrNames declared)
      );
      r = fn args;
      a = r.attrs;
    in
    if !(isAttrs r && r ? __crffBuildRedist) then
      { buildRedist = false; }
    else if typed "redistName" isString a.redistName != case.redistName then
      {
        skip = true;
        inherit (a) redistName;
      }
    else
      {
        pname = typed "pname" isString a.pname;
        inherit (a) redistName;
        inherit (r) version;
        outputs = typed "outputs" (o: isList o && builtins.all isString o) (a.outputs or [ "out" ]);
        includeRemoveStubsFromRunpathHook =
          typed "includeRemoveStubsFromRunpathHook" (v: v == null || isBool v)
            (a.includeRemoveStubsFromRunpathHook or null);
        allowFHSReferences = typed "allowFHSReferences" isBool (a.allowFHSReferences or false);
      }
      // (
        if req.withDeps then
          {
            buildInputs = inputNames (a.buildInputs or [ ]);
            propagatedBuildInputs = inputNames (a.propagatedBuildInputs or [ ]);
            autoPatchelfIgnoreMissingDeps =
              let
                v = a.autoPatchelfIgnoreMissingDeps or [ ];
              in
              if isBool v then v else filter isString v;
            appendRunpaths = runpathStrings (a.appendRunpaths or [ ]);
            runtimeDependencies = inputNames (a.runtimeDependencies or [ ]);
          }
        else
          { }
      );
in
listToAttrs (map (file: { name = file; value = map (evalCase file) req.cases; }) req.files)
