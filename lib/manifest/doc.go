// Package manifest reads NVIDIA redistributable manifests
// (redistrib_<version>.json): their releases, and the archives they list
// per platform and CUDA variant, in both layouts NVIDIA uses (v2: platform
// → archive; v3: platform → cuda variant → archive), and what a CUDA
// variant (cuda12, cuda13.1) and a CUDA version say of the CUDA major.
//
// This parser is the one validator of a manifest: the CLI runs it before
// evaluating anything, the aggregate builder on the manifest it
// aggregates. The Nix walker (nix/manifest.nix) only lists what has the
// shape of an archive; it reads the known platforms from keys.json, which
// this package embeds.
//
// Archive is the one Go type of an archive, and Variant's zero value,
// NoVariant, the one Go spelling of "no variant": the index format, the
// Nix pipeline and the reports spell it "None", and only Variant's
// encoders and decoders convert.
package manifest
