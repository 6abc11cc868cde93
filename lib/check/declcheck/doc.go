// Package declcheck holds one buildRedist declaration (a Nixpkgs package
// file's outputs, stubs hook and allowFHSReferences) against one
// archive's tree: it runs the buildRedist simulation
// (lib/buildredist) with the declared outputs and reports what
// would fail the build (errors) and what could be declared more (hints).
// check-nixpkgs and its --fix both ask it.
package declcheck
