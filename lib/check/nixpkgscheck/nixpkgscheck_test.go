package nixpkgscheck

import (
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func TestBaseURL(t *testing.T) {
	const cudaBase = "https://developer.download.nvidia.com/compute/cuda/redist"
	tests := []struct {
		name        string
		urls        []string
		redist      string
		single      bool
		want        string
		wantGuessed bool
	}{
		{"REDIST=URL for this redist", []string{"file:///x", "cuda=file:///c"}, "cuda", true, "file:///c", false},
		{"REDIST=URL for another redist: NVIDIA's base", []string{"cudnn=file:///d"}, "cuda", true, cudaBase, false},
		{"plain URL with one directory", []string{"file:///x"}, "sample", true, "file:///x", false},
		{"plain URL ignored with several directories", []string{"file:///x"}, "cuda", false, cudaBase, false},
		// The "=" is in the URL's path: no REDIST= prefix.
		{"plain URL with = in its path", []string{"file:///a=b"}, "sample", true, "file:///a=b", false},
		{"no REDIST= match through a path", []string{"file:///a=b"}, "file:///a", false,
			ConventionalBase + "file:///a/redist", true},
		{"unknown redist: NVIDIA's layout, guessed", nil, "cufuture", false, ConventionalBase + "cufuture/redist", true},
		{"a redist new in base-urls.json (cublasmp)", nil, "cublasmp", false, ConventionalBase + "cublasmp/redist", false},
		{"the comment of base-urls.json is no redist", nil, "comment", true, ConventionalBase + "comment/redist", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, guessed := BaseURL(tc.urls, tc.redist, tc.single)
			if got != tc.want || guessed != tc.wantGuessed {
				t.Errorf("BaseURL(%q, %q, %v) = %q, %v; want %q, %v", tc.urls, tc.redist, tc.single, got, guessed, tc.want, tc.wantGuessed)
			}
		})
	}
}

func TestCudaVersion(t *testing.T) {
	tests := []struct {
		override, redist, version, variant string
		want                               string
	}{
		{"", "cuda", "12.6.3", "", "12.6"},             // the cuda redist's own major.minor
		{"", "cuda", "13.0.0", "", "13.0"},             //
		{"", "cudnn", "9.8.0", "", DefaultCudaVersion}, // other redists: the default
		{"12.4", "cuda", "12.6.3", "", "12.4"},         // --cuda-version wins
		{"", "cudnn", "9.8.0", "cuda12", "12.8"},       // the variant's major is the default's
		{"", "cudnn", "9.8.0", "cuda11", "11.0"},       // another major: major.0
		{"13.0", "cudnn", "9.8.0", "cuda12", "12.0"},   // also against --cuda-version
		{"", "cuda", "11.8.0", "cuda11", "11.8"},       // the cuda redist's version serves its variant
		{"", "cuda", "13.1.1", "cuda13.1", "13.1"},     // cuda_compat's major.minor variant
		{"", "cuda", "13.2.0", "cuda13.1", "13.1"},     // one of another minor: that version
		{"13.1", "cudnn", "9.8.0", "cuda13", "13.1"},   //
		{"", "cudnn", "9.8.0", "cuda1", "1.0"},         // "12.8" is no version of major 1
		{"", "cuda", "12", "", "12"},                   // a version without minor
	}
	for _, tc := range tests {
		if got := CudaVersion(tc.override, tc.redist, tc.version, manifest.Variant(tc.variant)); got != tc.want {
			t.Errorf("CudaVersion(%q, %q, %q, %q) = %q, want %q", tc.override, tc.redist, tc.version, tc.variant, got, tc.want)
		}
	}
}

func TestEvalPlatform(t *testing.T) {
	for p, want := range map[string]string{
		"source": "linux-x86_64", "linux-all": "linux-x86_64",
		"linux-x86_64": "linux-x86_64", "linux-sbsa": "linux-sbsa", "linux-aarch64": "linux-aarch64",
	} {
		if got := EvalPlatform(p); got != want {
			t.Errorf("EvalPlatform(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestChecked(t *testing.T) {
	for p, want := range map[string]bool{"linux-x86_64": true, "source": true, "windows-x86_64": false, "windows-all": false} {
		if got := Checked(p); got != want {
			t.Errorf("Checked(%q) = %v, want %v", p, got, want)
		}
	}
}
