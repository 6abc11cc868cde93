package manifest

import "strings"

// Variant is an archive's CUDA variant: "cuda12", "cuda13.1". Its zero
// value, NoVariant, is an archive without one: the one Go spelling of
// "no variant". The files and Nix name it "None" (the index format's
// variant key, nix/cli.nix's entries, the reports): Variant converts
// when it is encoded (String, MarshalText) and decoded (ParseVariantKey,
// UnmarshalText), and nowhere else.
type Variant string

// NoVariant is an archive without a CUDA variant.
const NoVariant Variant = ""

// noVariantKey is how the index format, detail.json, the Nix pipeline
// and the reports spell NoVariant.
const noVariantKey = "None"

// String is the variant as the index format, Nix and the reports spell
// it: "None" for NoVariant.
func (v Variant) String() string {
	if v == NoVariant {
		return noVariantKey
	}
	return string(v)
}

// ParseVariantKey is String's inverse: NoVariant for "None" (and "").
func ParseVariantKey(key string) Variant {
	if key == noVariantKey {
		return NoVariant
	}
	return Variant(key)
}

// MarshalText encodes the variant as String spells it.
func (v Variant) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText decodes a variant as String spells it.
func (v *Variant) UnmarshalText(text []byte) error {
	*v = ParseVariantKey(string(text))
	return nil
}

// A CUDA variant names the CUDA version an archive is built for: "cuda"
// and the version, "cuda12" (a major; cuda_variant ["12"]) or, from CUDA
// 13.1's cuda_compat, "cuda13.1" (a major.minor). These functions are the
// one place that reads a variant or a CUDA version for its major; the Nix
// side passes variants as they are (the detect builder takes --variant).

// VariantName is the variant of a CUDA version as a manifest's
// cuda_variant lists it: "cuda12" for "12", "cuda13.1" for "13.1".
func VariantName(cudaVersion string) Variant { return Variant("cuda" + cudaVersion) }

// IsVariant reports whether v is a CUDA variant: cuda12, cuda13.1.
// NoVariant is not.
func IsVariant(v Variant) bool { return isVariantName(string(v)) }

// VariantCudaVersion is the CUDA version a variant names: "12" for
// cuda12, "13.1" for cuda13.1. ok is false for anything that is not a
// variant (NoVariant).
func VariantCudaVersion(variant Variant) (version string, ok bool) {
	if !IsVariant(variant) {
		return "", false
	}
	return strings.TrimPrefix(string(variant), "cuda"), true
}

// VariantCudaMajor is the CUDA major of a variant, Nixpkgs'
// cudaMajorVersion for the packages built from its archives: "12" for
// cuda12, "13" for cuda13.1. ok is false for anything that is not a
// variant (NoVariant).
func VariantCudaMajor(variant Variant) (major string, ok bool) {
	v, ok := VariantCudaVersion(variant)
	if !ok {
		return "", false
	}
	return CudaMajor(v), true
}

// CudaMajor is the major of a CUDA version, as Nixpkgs' cudaMajorVersion
// is of its cudaVersion: "12" for "12.8" and "12.8.0", "13" for "13".
func CudaMajor(cudaVersion string) string {
	major, _, _ := strings.Cut(cudaVersion, ".")
	return major
}
