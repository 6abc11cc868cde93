package features

// The resolved runtime loads the aggregate adds (lib/runtimedeps): what
// provides each library an archive's libraries load at run time.

// Kinds of provider of a runtime load.
const (
	// ProviderSamePackage: the archive itself has the library (NVRTC's
	// builtins); buildRedist's $ORIGIN on the RUNPATH finds it.
	ProviderSamePackage = "samePackage"
	// ProviderPackage: another package of the release (or of the
	// manifests given) provides it.
	ProviderPackage = "package"
	// ProviderDriver: the NVIDIA driver ships it; Nixpkgs reaches it
	// through the driver link every redist package gets.
	ProviderDriver = "driver"
	// ProviderFree: a free distribution ships it (the soname index).
	ProviderFree = "free"
	// ProviderUnknown: nothing known provides it.
	ProviderUnknown = "unknown"
)

// LoadProvider is what provides a runtime load.
type LoadProvider struct {
	// Kind is one of the Provider* constants.
	Kind string `json:"kind"`
	// Package is the providing package (samePackage, package), or the
	// Nixpkgs attribute known to ship a free library ("" when none is
	// known).
	Package string `json:"package,omitempty"`
	// Sonames are the libraries of the provider the load's name (or
	// glob) matches.
	Sonames []string `json:"sonames,omitempty"`
	// Source is where a free library was found (the soname index's
	// provider line: "Debian bookworm main").
	Source string `json:"source,omitempty"`
	// Reason says why this provider (or why none).
	Reason string `json:"reason"`
}

// ResolvedLoad is one runtime load of one library of an archive,
// resolved. Only loads (confidence declared, high, medium) are resolved;
// mentions stay in the library record alone.
type ResolvedLoad struct {
	// Library is the loading library's path in the archive.
	Library    string       `json:"library"`
	Name       string       `json:"name"`
	Glob       string       `json:"glob,omitempty"`
	Confidence string       `json:"confidence"`
	Provider   LoadProvider `json:"provider"`
	// Evidence is the strongest place the name was found (the library
	// record has them all).
	Evidence LoadEvidence `json:"evidence"`
}

// PackageLoad is one name a package's libraries load at run time, over
// every archive of the package in one manifest (buildRedist.json).
type PackageLoad struct {
	Name     string       `json:"name"`
	Glob     string       `json:"glob,omitempty"`
	Provider LoadProvider `json:"provider"`
	// Libraries are the file names of the loading libraries, sorted.
	Libraries []string `json:"libraries"`
	// Archives are the archives that load it ("platform/variant"),
	// sorted.
	Archives []string `json:"archives"`
}

// IndexLoad is one runtime load of an archive in the index: enough to
// say, across releases, from which version of a package it appears.
type IndexLoad struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Package  string `json:"package,omitempty"`
}
