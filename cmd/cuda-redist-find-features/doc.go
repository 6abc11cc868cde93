// Command cuda-redist-find-features, the CLI, finds the features of NVIDIA
// CUDA redistributable archives: the commands users run. It builds none
// of the pipeline's derivations: their builders are cuda-redist-detector
// (unpack, detect) and cuda-redist-aggregate (aggregate, buildRedist,
// merged index), which it finds installed beside itself. Its own unpack
// and detect commands, for users, take the detector's flags and run the
// detector's code (detector/unpack, detector/facts). Nix runs it only to
// build the reports and the flake's checks (docs/design.md).
package main
