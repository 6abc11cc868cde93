// Package unpack extracts NVIDIA redistributable archives (.tar.xz, .tar.gz,
// .tar.bz2, .tar, .zip) safely: nothing is ever written outside the output
// directory, memory stays bounded whatever the archive size, and anything a
// Nix store path cannot hold (devices, fifos, owners, times) is refused or
// normalised.
package unpack
