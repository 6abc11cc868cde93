// Command cuda-redist-detector is the builder of the sandboxed per-archive
// derivations of the pipeline (nix/pipeline.nix): it unpacks an archive
// and records the facts of the unpacked tree (its listing, ELF, ar and
// fatbin facts, NAR hash). Nothing else: the rules derived from those
// facts (buildRedist's simulation, declarations) run in the per-manifest
// aggregate, and reports, checks, fixes and the Nix driver are the CLI's
// (cmd/cuda-redist-find-features). Its import closure is held to that by
// tests/layout, and it is built reproducibly (-trimpath, no build ID, no
// version stamped in), so a change anywhere else leaves its bytes, and
// every unpack and detect derivation, unchanged. See docs/design.md.
package main
