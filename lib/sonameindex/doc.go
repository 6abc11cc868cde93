// Package sonameindex reads soname indexes: which shared-library names a
// free distribution ships, and in which package or folder. The
// vendored-library check (lib/check/vendored) asks it whether a library
// of an NVIDIA archive is one a distribution has. The format is plain
// text, one name a line (docs/vendored.md); nix-locate's output is read
// as is. The default index, Debian bookworm main's sonames, is embedded
// (README.md says where it comes from and how to rebuild it).
package sonameindex
