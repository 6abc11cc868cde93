// Package buildredist simulates what Nixpkgs' buildRedist does with an
// unpacked redistributable (pkgs/development/cuda-modules, the CUDA 13
// packaging): the lib/<major> and pkg-config moves before install, the
// moveToOutput of each declared output's patterns, and the install checks
// that fail a build (empty declared outputs, stubs directories against
// includeRemoveStubsFromRunpathHook, /usr/ references).
//
// It works on a Tree, the list of what an archive holds, which the
// detect records while it walks the archive once.
package buildredist
