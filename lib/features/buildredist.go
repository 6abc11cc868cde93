package features

// The buildRedist parts of the formats: what the simulation
// (lib/buildredist) records per archive, and what the aggregate
// declares per package (buildRedist.json).

// BuildRedistOutputs are the outputs Nixpkgs' buildRedist knows, in its
// order.
var BuildRedistOutputs = []string{"out", "doc", "samples", "python", "bin", "dev", "include", "lib", "static", "stubs"}

// Tree is what an unpacked archive holds, as buildRedist sees it.
type Tree struct {
	// Files are regular files, Symlinks symlinks (dangling ones included:
	// moveToOutput moves them too), EmptyDirs directories without entries.
	Files     []string `json:"files"`
	Symlinks  []string `json:"symlinks"`
	EmptyDirs []string `json:"emptyDirs"`
	// UsrFiles are the regular files whose content contains "/usr/".
	UsrFiles []string `json:"usrFiles"`
	// UsrOnlyInPkgConfigVars are the *.pc files of UsrFiles whose every
	// "/usr/" is on a cudaroot=, libdir=…/lib or includedir=…/include line,
	// which patchCudaPkgConfig rewrites to store paths when the file ends
	// up in share/pkgconfig/.
	UsrOnlyInPkgConfigVars []string `json:"usrOnlyInPkgConfigVars"`
}

// FHS counts the files that fail the /usr/ check.
type FHS struct {
	Count int      `json:"count"`
	Paths []string `json:"paths"`
}

// BuildRedistFacts are what one archive needs from its buildRedist call.
type BuildRedistFacts struct {
	// Outputs are the outputs that are non-empty when every expected
	// output is declared: the list to declare, in BuildRedistOutputs order,
	// "out" always first.
	Outputs []string `json:"outputs"`
	// HasStubs: some output holds a directory named stubs, so
	// includeRemoveStubsFromRunpathHook must be true.
	HasStubs  bool     `json:"hasStubs"`
	StubsDirs []string `json:"stubsDirs"`
	// FHSReferences are files other than LICENSE containing /usr/: when
	// there are any, allowFHSReferences must be true.
	FHSReferences FHS `json:"fhsReferences"`
	// CudaMajorDir: lib/<cudaMajorVersion>/ exists and replaced lib/.
	CudaMajorDir bool `json:"cudaMajorDir"`
	// Globstar records the reading of "**" the simulation used.
	Globstar bool `json:"globstar"`
}

// BuildRedistDecl is what one package's buildRedist call should declare, from
// every platform and CUDA variant the manifest has for it.
type BuildRedistDecl struct {
	// Outputs is the list to declare when one list fits every platform
	// and variant; empty otherwise.
	Outputs []string `json:"outputs"`
	// OutputsByPlatform is the list each platform and variant needs.
	OutputsByPlatform map[string]map[string][]string `json:"outputsByPlatform"`
	// NixExpression declares the outputs in Nix: a literal list, or the
	// common list plus lib.optionals for what only some platforms or
	// variants need (names from Nixpkgs' cuda-modules scope:
	// backendStdenv.hostRedistSystem, cudaMajorVersion).
	NixExpression string `json:"nixExpression"`
	// IncludeRemoveStubsFromRunpathHook must be set when some archive has
	// a stubs directory.
	IncludeRemoveStubsFromRunpathHook bool `json:"includeRemoveStubsFromRunpathHook"`
	// AllowFHSReferences must be set when some archive has a file with /usr/.
	AllowFHSReferences bool `json:"allowFHSReferences"`
	// FHSReferences names the first such files: "platform/variant: path".
	FHSReferences []string `json:"fhsReferences"`
	// RuntimeDependencies are the libraries the package's libraries load
	// at run time, resolved (lib/runtimedeps), by name; absent when none.
	RuntimeDependencies []PackageLoad `json:"runtimeDependencies,omitempty"`
}
