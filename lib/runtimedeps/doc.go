// Package runtimedeps resolves the runtime loads the detector records
// (a library's dlopen names, features.RuntimeLoad) to what provides them:
// the same package, another package of the release, the NVIDIA driver, a
// free library of the soname index, or nothing known. It is a rule of the
// aggregate (stage 4): a change of it rebuilds the aggregates alone, never
// a detection (docs/runtime-dependencies.md).
package runtimedeps
