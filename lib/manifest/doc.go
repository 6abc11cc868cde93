// Package manifest reads NVIDIA redistributable manifests
// (redistrib_<version>.json): their releases, and the archives they list
// per platform and CUDA variant, in both layouts NVIDIA uses (v2: platform
// → archive; v3: platform → cuda variant → archive), and what a CUDA
// variant (cuda12, cuda13.1) and a CUDA version say of the CUDA major.
//
// Archive is the one Go type of an archive, and Variant's zero value,
// NoVariant, the one Go spelling of "no variant": the index format, the
// Nix pipeline and the reports spell it "None", and only Variant's
// encoders and decoders convert.
//
// The set of known keys lives in keys.json, which the Nix side
// (nix/manifest.nix) reads too, so both agree on what a manifest may hold.
package manifest
