// Command cuda-redist-find-features finds the features of NVIDIA CUDA
// redistributable archives. The static binary is the CLI, and the
// builder of the pipeline's derivations no program of their own is given
// for: the unpack and detect derivations have cuda-redist-detector, and
// this binary's unpack and detect commands do the same work without it.
package main
