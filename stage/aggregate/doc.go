// Package aggregate is the aggregate stage: the aggregate derivation's
// builder reads one manifest's detections (checking that Nix passed
// exactly the archives the Go parser finds) and writes its documents:
// feature_<version>.json (upstream's legacy format), index.json,
// detail.json and buildRedist.json. It also merges index files of
// several manifests. Nothing but the builders (and the CLI's --partial
// file, written with the same code) aggregates.
package aggregate
