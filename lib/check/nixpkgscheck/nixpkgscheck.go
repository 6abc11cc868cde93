package nixpkgscheck

import (
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Where a Nixpkgs checkout keeps the cuda-modules package files,
// manifests and the aliases of renamed packages, relative to its root.
const (
	PackagesDir  = "pkgs/development/cuda-modules/packages"
	ManifestsDir = "pkgs/development/cuda-modules/_cuda/manifests"
	AliasesFile  = "pkgs/development/cuda-modules/aliases.nix"
)

// ConventionalBase + REDIST + "/redist" is where NVIDIA keeps most redists.
const ConventionalBase = "https://developer.download.nvidia.com/compute/"

// DefaultCudaVersion is the cudaVersion of packages without CUDA variants
// when no manifest of the cuda redist says otherwise.
const DefaultCudaVersion = "12.8"

// BaseURL picks the base URL of a manifest directory named redist from the
// --url values: REDIST=URL first, then a plain URL when there is only one
// directory (single), then NVIDIA's known base (lib/manifest). When none
// applies, guessed is true and url is NVIDIA's conventional layout:
// a new redist may not be in base-urls.json yet, and a wrong guess is a
// fetch failure, never a wrong archive (the hash is checked).
func BaseURL(urls []string, redist string, single bool) (url string, guessed bool) {
	for _, u := range urls {
		if name, url, ok := strings.Cut(u, "="); ok && name == redist && !strings.Contains(name, "/") {
			return url, false
		}
	}
	if single {
		for _, u := range urls {
			// A "=" inside a URL's path is no REDIST= prefix.
			if name, _, ok := strings.Cut(u, "="); !ok || strings.Contains(name, "/") {
				return u, false
			}
		}
	}
	if url, ok := manifest.BaseURL(redist); ok {
		return url, false
	}
	return ConventionalBase + redist + "/redist", true
}

// CudaVersion is the cudaVersion a package file is evaluated with for an
// archive: override (--cuda-version) if given, else the cuda redist's own
// major.minor, else DefaultCudaVersion; an archive of a CUDA variant
// ("cuda12") whose major differs gets major.0, as Nixpkgs selects that
// variant only for that major; a major.minor variant ("cuda13.1") gets
// that version.
func CudaVersion(override, redist, manifestVersion string, variant manifest.Variant) string {
	v := override
	if v == "" {
		v = DefaultCudaVersion
		if redist == "cuda" {
			parts := strings.Split(manifestVersion, ".")
			v = strings.Join(parts[:min(2, len(parts))], ".")
		}
	}
	want, isVariant := manifest.VariantCudaVersion(variant)
	switch {
	case !isVariant || v == want || strings.HasPrefix(v, want+"."):
	case strings.Contains(want, "."):
		// cuda_compat's cuda13.1 (CUDA 13.1.1 to 13.3.1) is a major.minor.
		v = want
	default:
		v = want + ".0"
	}
	return v
}

// EvalPlatform is the hostRedistSystem a package file is evaluated for:
// source archives build on every platform; x86_64 stands for them.
func EvalPlatform(p string) string {
	if p == "source" || p == "linux-all" {
		return "linux-x86_64"
	}
	return p
}

// Checked reports whether archives of a platform are checked at all:
// Nixpkgs builds no Windows package.
func Checked(platform string) bool { return !strings.HasPrefix(platform, "windows") }
