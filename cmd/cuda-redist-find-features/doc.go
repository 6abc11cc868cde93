// Command cuda-redist-find-features finds the features of NVIDIA CUDA
// redistributable archives. The same static binary is the CLI and the
// builder of the Nix derivations that unpack, detect and aggregate.
package main
