// Command cuda-redist-find-features finds the features of NVIDIA CUDA
// redistributable archives. The static binary is the CLI and the builder
// of the pipeline's aggregate and index derivations; the unpack and detect
// derivations have cuda-redist-detector as builder, and this binary's own
// unpack and detect commands do the same work where no detector is given.
package main
