package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// TestDetectWarnsAboutFatbin: what detect does not understand in a
// fatbin is a warning on stderr naming the library, and in the result's
// fatbinWarnings; the library is still detected.
func TestDetectWarnsAboutFatbin(t *testing.T) {
	type img = testfatbin.Image
	dir := t.TempDir()
	lib := testelf.Build(testelf.Spec{Soname: "libodd.so.1", Sections: []testelf.Section{{Name: ".nv_fatbin",
		Data: testfatbin.Container(img{SM: 90}, img{Kind: 0x40, HeaderSize: 80}, img{SM: 100, ExtraFlags: 0x4})}}})
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "libodd.so.1"), lib, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("detect", dir)
	if code != exitOK {
		t.Fatalf("detect: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`level=WARN msg="fatbin: entry kind 0x40 not understood (not counted): 1 entry" library=lib/libodd.so.1`,
		`level=WARN msg="fatbin: flag bits 0x4 not understood (elf sm_100): 1 entry" library=lib/libodd.so.1`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
	for _, want := range []string{`"fatbinWarnings": [`, `"cudaArchitectures": [
        "sm_90",
        "sm_100"
      ]`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout)
		}
	}
}

// versionDirs is a tree of lib/13 and lib/12, each with a library.
func versionDirs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"lib/13/libx.so", "lib/12/libx.so"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("not ELF"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// detectJSON runs detect with args and decodes its result, failing the
// test on an exit other than 0; stderr is returned for its warnings.
func detectJSON(t *testing.T, args ...string) (features.Features, string) {
	t.Helper()
	code, stdout, stderr := runCLI(append([]string{"detect"}, args...)...)
	if code != exitOK {
		t.Fatalf("detect %v: exit %d\n%s", args, code, stderr)
	}
	var f features.Features
	if err := json.Unmarshal([]byte(stdout), &f); err != nil {
		t.Fatal(err)
	}
	return f, stderr
}

// TestDetectVariantSetsTheCudaMajor: --variant's CUDA major picks the
// lib/<major> directory (cuda13.1 is major 13), and no per-major
// simulation is made beside it.
func TestDetectVariantSetsTheCudaMajor(t *testing.T) {
	dir := versionDirs(t)
	tests := []struct {
		variant  string
		majorDir bool
	}{
		{"cuda13.1", true},
		{"cuda13", true},
		{"cuda12", true},
		{"cuda11", false},
	}
	for _, tt := range tests {
		f, _ := detectJSON(t, "--variant", tt.variant, dir)
		if f.BuildRedist.CudaMajorDir != tt.majorDir {
			t.Errorf("detect --variant %s: buildRedist.cudaMajorDir = %v, want %v", tt.variant, f.BuildRedist.CudaMajorDir, tt.majorDir)
		}
		if f.BuildRedistByCudaMajor != nil {
			t.Errorf("detect --variant %s: buildRedistByCudaMajor = %v, want none (the variant decides)", tt.variant, f.BuildRedistByCudaMajor)
		}
	}
	for _, bad := range []string{"13", "None", "cuda13.1.2"} {
		if code, _, stderr := runCLI("detect", "--variant", bad, dir); code != exitUsage || !strings.Contains(stderr, "not a CUDA variant") {
			t.Errorf("detect --variant %s: exit %d, want %d naming it\n%s", bad, code, exitUsage, stderr)
		}
	}
}

// TestDetectCudaMajorFlagIsGone: --cuda-major, the old form of
// --variant, is no flag any more.
func TestDetectCudaMajorFlagIsGone(t *testing.T) {
	dir := versionDirs(t)
	if code, _, stderr := runCLI("detect", "--cuda-major", "13", dir); code != exitUsage || !strings.Contains(stderr, "unknown flag: --cuda-major") {
		t.Errorf("detect --cuda-major 13: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}
