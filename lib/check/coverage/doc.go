// Package coverage says, for the GPUs a Nixpkgs user builds for (the
// entries of config.cudaCapabilities: "8.9", "10.0f", "12.0a"), whether
// each library of an archive can run on them: SASS that runs as is, PTX
// the driver can JIT-compile, or nothing. A library without device code
// is none of these: it runs on any GPU (or on none, being host code).
//
// An entry names a GPU by its compute capability; a suffix says which
// code Nixpkgs builds for it, not a different GPU: "12.0a" is a GPU of
// compute capability 12.0 for which the user wants architecture-specific
// code (Nixpkgs passes -gencode=arch=compute_120a,code=sm_120a), "10.0f"
// a GPU of 10.0 for which the user wants family-specific code (sm_100f).
// A prebuilt NVIDIA library runs on that GPU if any of its cubins does,
// whatever the cubin's own kind: the rules are lib/capability's, and
// docs/compatibility.md cites NVIDIA's documentation for them.
package coverage
