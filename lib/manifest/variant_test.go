package manifest_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func TestVariantCudaVersionAndMajor(t *testing.T) {
	tests := []struct {
		variant        manifest.Variant
		version, major string
		ok             bool
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
		if a.Variant == manifest.NoVariant {
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

// TestVariantSpellings: NoVariant is "None" wherever a variant is
// written (String, JSON values, text) and read back from "None"; a CUDA
// variant is itself both ways.
func TestVariantSpellings(t *testing.T) {
	for _, tt := range []struct {
		v    manifest.Variant
		key  string
		json string
	}{
		{manifest.NoVariant, "None", `{"variant":"None"}`},
		{"cuda12", "cuda12", `{"variant":"cuda12"}`},
		{"cuda13.1", "cuda13.1", `{"variant":"cuda13.1"}`},
	} {
		if got := tt.v.String(); got != tt.key {
			t.Errorf("%q.String() = %q, want %q", string(tt.v), got, tt.key)
		}
		if got := fmt.Sprintf("%s %v", tt.v, tt.v); got != tt.key+" "+tt.key {
			t.Errorf("fmt of %q = %q, want %q twice", string(tt.v), got, tt.key)
		}
		if got := manifest.ParseVariantKey(tt.key); got != tt.v {
			t.Errorf("ParseVariantKey(%q) = %q, want %q", tt.key, string(got), string(tt.v))
		}
		type doc struct {
			Variant manifest.Variant `json:"variant"`
		}
		data, err := json.Marshal(doc{tt.v})
		if err != nil || string(data) != tt.json {
			t.Errorf("json.Marshal(%q) = %s, %v; want %s", string(tt.v), data, err, tt.json)
		}
		var back doc
		if err := json.Unmarshal([]byte(tt.json), &back); err != nil || back.Variant != tt.v {
			t.Errorf("json.Unmarshal(%s) = %q, %v; want %q", tt.json, string(back.Variant), err, string(tt.v))
		}
	}
}
