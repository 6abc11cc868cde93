package manifest_test

import (
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func TestVariantCudaVersionAndMajor(t *testing.T) {
	tests := []struct {
		variant, version, major string
		ok                      bool
	}{
		{"cuda11", "11", "11", true},
		{"cuda12", "12", "12", true},
		// cuda_compat from CUDA 13.1: a major.minor variant whose major is 13.
		{"cuda13.1", "13.1", "13", true},
		{"cuda100.25", "100.25", "100", true},
		{"None", "", "", false},
		{"", "", "", false},
		{"cuda", "", "", false},
		{"cuda13.", "", "", false},
		{"cuda13.1.2", "", "", false},
		{"12", "", "", false},
		{"xcuda12", "", "", false},
	}
	for _, tt := range tests {
		version, ok := manifest.VariantCudaVersion(tt.variant)
		if version != tt.version || ok != tt.ok {
			t.Errorf("VariantCudaVersion(%q) = %q, %v; want %q, %v", tt.variant, version, ok, tt.version, tt.ok)
		}
		major, ok := manifest.VariantCudaMajor(tt.variant)
		if major != tt.major || ok != tt.ok {
			t.Errorf("VariantCudaMajor(%q) = %q, %v; want %q, %v", tt.variant, major, ok, tt.major, tt.ok)
		}
		if ok != manifest.IsVariant(tt.variant) {
			t.Errorf("IsVariant(%q) = %v, want %v", tt.variant, !ok, ok)
		}
		if tt.ok && manifest.VariantName(tt.version) != tt.variant {
			t.Errorf("VariantName(%q) = %q, want %q", tt.version, manifest.VariantName(tt.version), tt.variant)
		}
	}
}

func TestCudaMajor(t *testing.T) {
	for version, want := range map[string]string{
		"12": "12", "12.8": "12", "12.8.0": "12", "13.1": "13", "13.1.2": "13", "": "",
	} {
		if got := manifest.CudaMajor(version); got != want {
			t.Errorf("CudaMajor(%q) = %q, want %q", version, got, want)
		}
	}
}

// TestCudaCompatVariantOfARealManifest: CUDA 13.1.1's cuda_compat lists
// cuda_variant ["13.1"]; its archive's variant is cuda13.1, CUDA major 13.
func TestCudaCompatVariantOfARealManifest(t *testing.T) {
	m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cuda", "redistrib_13.1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := m.Releases["cuda_compat"]
	if !ok {
		t.Fatal("no cuda_compat in CUDA 13.1.1")
	}
	seen := 0
	for _, a := range r.Archives {
		if a.Variant == "" {
			continue
		}
		seen++
		if major, ok := manifest.VariantCudaMajor(a.Variant); a.Variant != "cuda13.1" || major != "13" || !ok {
			t.Errorf("%s: variant %q, major %q, %v; want cuda13.1, 13", a.ID(), a.Variant, major, ok)
		}
	}
	if seen == 0 {
		t.Error("cuda_compat of CUDA 13.1.1 has no archive with a variant")
	}
}
