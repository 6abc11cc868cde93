// Package narhash computes what Nix computes for a store path: the NAR
// serialisation of a tree and its SHA-256 hash in SRI form, as printed by
// `nix hash path` and `nix path-info --json` (narHash).
package narhash
