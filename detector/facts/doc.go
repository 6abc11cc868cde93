// Package detect decides the features of an unpacked redistributable
// archive: which Nix outputs it needs, the GPU architectures, sonames and
// needed libraries of its libraries, its headers and python modules, and
// the NAR hash of the tree, in one walk that reads each file once.
//
// The rules follow the upstream Python tool (docs/detection.md), with its bugs
// fixed: a bin/ file counts only with a real executable bit, and a lib/
// holding both files and subdirectories is reported, not fatal.
package facts
