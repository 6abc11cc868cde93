// Package nixlib carries the Nix library (nix/*.nix, and the files
// outside nix/ they read, which nix/library-files.txt lists and the
// caller gives: this package imports nothing of lib/) inside the binary,
// so that an installed or copied binary drives the Nix pipeline from any
// directory.
//
// Nix reads files, not Go values: Extract writes the library once into a
// cache directory named after its content hash, atomically (a temporary
// directory renamed into place, under a lock), and later runs reuse it.
// The cache must be the user's alone (cache_linux.go). NarHash and
// StorePath name the library's copy in the Nix store, which is what Nix
// evaluates (nixdriver's nixlibstore.go says why).
//
// The flake's packages.cli (the builder of the reports and checks) is
// built with the crff_noembed tag: its hash then depends on the Go
// sources alone, so an edit of a Nix file rebuilds no report. That build carries no library (Embedded is false)
// and finds one as nixdriver.FindNixLib says.
package nixlib
