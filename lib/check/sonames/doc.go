// Package sonames works out which packages a CUDA redistributable archive
// needs at link time: each soname its libraries need (DT_NEEDED,
// `neededLibs`) is matched with the packages of the same release that
// provide it (DT_SONAME, `providedLibs`). autoPatchelfHook, which
// buildRedist runs on every package, fails the build when a needed soname
// is in none of the package's inputs.
package sonames
