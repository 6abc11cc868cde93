package manifest

import "strings"

// A CUDA variant names the CUDA version an archive is built for: "cuda"
// and the version, "cuda12" (a major; cuda_variant ["12"]) or, from CUDA
// 13.1's cuda_compat, "cuda13.1" (a major.minor). These functions are the
// one place that reads a variant or a CUDA version for its major; the Nix
// side passes variants as they are (the detect builder takes --variant).

// VariantName is the variant of a CUDA version as a manifest's
// cuda_variant lists it: "cuda12" for "12", "cuda13.1" for "13.1".
func VariantName(cudaVersion string) string { return "cuda" + cudaVersion }

// IsVariant reports whether s is a CUDA variant: cuda12, cuda13.1. The
// index format's "None" and "" (no variant) are not.
func IsVariant(s string) bool { return variantName.MatchString(s) }

// VariantCudaVersion is the CUDA version a variant names: "12" for
// cuda12, "13.1" for cuda13.1. ok is false for anything that is not a
// variant ("", "None").
func VariantCudaVersion(variant string) (version string, ok bool) {
	if !IsVariant(variant) {
		return "", false
	}
	return strings.TrimPrefix(variant, "cuda"), true
}

// VariantCudaMajor is the CUDA major of a variant, Nixpkgs'
// cudaMajorVersion for the packages built from its archives: "12" for
// cuda12, "13" for cuda13.1. ok is false for anything that is not a
// variant ("", "None").
func VariantCudaMajor(variant string) (major string, ok bool) {
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
