// Command cuda-redist-aggregate is the builder of the pipeline's
// per-manifest aggregate and merged-index derivations (nix/pipeline.nix):
// it reads the detections of a manifest's archives, runs the rules derived
// from their facts (buildRedist's simulation, the declarations) and writes
// the manifest's four documents, or merges several manifests' indexes.
// Nothing else: unpack and the per-archive facts are cuda-redist-detector's,
// and reports, checks, fixes, printing and the Nix driver are the CLI's
// (cmd/cuda-redist-find-features). Its import closure is held to that by
// tests/layout, and it is built reproducibly (-trimpath, no build ID, no
// version stamped in), so a change of the CLI alone leaves its bytes, and
// every aggregate derivation, unchanged. See docs/design.md.
package main
