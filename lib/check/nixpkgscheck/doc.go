// Package nixpkgscheck holds the rules of check-nixpkgs: which cases
// (platform, CUDA version, manifest) the package files of a Nixpkgs
// cuda-modules tree are evaluated for, which package file stands for which
// archive (by pname), and what the report says: buildRedist's simulation
// (lib/buildredist) against each file's declaration, the sonames each
// archive needs against the file's inputs (lib/check/sonames), evaluation errors,
// and the exit code. It runs no Nix and reads no file: the caller passes
// the parsed manifests, the detections and pkgeval's results, so every
// rule is table-tested without a store.
package nixpkgscheck
