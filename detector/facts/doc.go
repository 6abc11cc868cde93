// Package facts decides the facts of an unpacked redistributable archive
// (Detect): which Nix outputs it needs, the GPU architectures, sonames and
// needed libraries of its libraries, its headers and python modules, the
// tree's listing and its NAR hash, in one walk that reads each file once.
// It runs in cuda-redist-detector; what the buildRedist rules derive from
// these facts is lib/buildredist's, in the aggregate.
//
// The rules follow the upstream Python tool (docs/detection.md), with its bugs
// fixed: a bin/ file counts only with a real executable bit, and a lib/
// holding both files and subdirectories is reported, not fatal.
package facts
