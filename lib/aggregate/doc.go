// Package aggregate is the aggregate stage: the aggregate derivation's
// builder reads the detections of the archives the Nix walker listed
// (nix/manifest.nix, which lists and does not validate; the builder
// validates the manifest with the Go parser, the one validator, and does
// not list its archives again) and writes the manifest's documents:
// feature_<version>.json (upstream's legacy format), index.json,
// detail.json and buildRedist.json. It also merges index files of
// several manifests. Nothing but the builders (and the CLI's --partial
// file, written with the same code) aggregates.
package aggregate
