package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// TestDetectWarnsAboutFatbin: what the detector does not understand in a
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
