// Package aggregate is the aggregate stage: the aggregate derivation's
// builder reads the detections of the archives the Nix walker listed
// (nix/manifest.nix; the builder validates the manifest but does not list
// its archives again) and writes the manifest's documents:
// feature_<version>.json (upstream's legacy format), index.json,
// detail.json and buildRedist.json. It also merges index files of
// several manifests. Nothing but the builders (and the CLI's --partial
// file, written with the same code) aggregates.
package aggregate
