package nixpkgscheck

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func withLibraries(libs ...features.Library) *features.Features {
	return &features.Features{Libraries: libs}
}

// TestCoverageFindings: a library nothing of runs on a requested GPU is a
// hint, or with required an error that makes the check exit 1; one
// finding per library names all its capabilities; libraries without
// device code, stubs and undetected archives give none.
func TestCoverageFindings(t *testing.T) {
	caps, err := coverage.ParseList("7.5,9.0a,12.0")
	if err != nil {
		t.Fatal(err)
	}
	archives := []Archive{
		x86("libgood", withLibraries(features.Library{Path: "lib/libgood.so.1", SASSArchitectures: []string{"sm_75", "sm_90a"}, PTXArchitectures: []string{"sm_90"}})),
		x86("libold", withLibraries(
			features.Library{Path: "lib/libold.so.1", SASSArchitectures: []string{"sm_80", "sm_90"}},
			features.Library{Path: "lib/libhost.so.1"},
			features.Library{Path: "lib/stubs/libold.so", Stub: true, SASSArchitectures: []string{"sm_52"}})),
		x86("libundetected", nil),
	}
	want := []Finding{{Level: LevelHint, Kind: KindCapabilityNotCovered, Package: "libold", Platform: "linux-x86_64", Variant: "None", Version: "1.0",
		Path: "lib/libold.so.1", Message: "no SASS runs on and no PTX JIT-compiles for cudaCapabilities 7.5, 12.0 (the library has SASS sm_80 sm_90; PTX none)"}}
	for _, required := range []bool{false, true} {
		got, err := CoverageFindings(archives, caps, required)
		if err != nil {
			t.Fatal(err)
		}
		if required {
			want[0].Level = LevelError
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("required=%v (-want +got):\n%s", required, diff)
		}
		code, _ := Count(got).Outcome()
		if wantCode := map[bool]int{false: ExitOK, true: ExitErrors}[required]; code != wantCode {
			t.Errorf("required=%v: exit %d, want %d", required, code, wantCode)
		}
	}
	if got, _ := CoverageFindings(archives, nil, true); got != nil {
		t.Errorf("no capabilities asked: %v", got)
	}
	text := want[0].Text()
	if wantText := "ERROR libold linux-x86_64 None 1.0: lib/libold.so.1: no SASS runs on"; !strings.HasPrefix(text, wantText) {
		t.Errorf("Text() = %q, want it to start with %q", text, wantText)
	}
	bad := []Archive{x86("libbad", withLibraries(features.Library{Path: "lib/libbad.so", SASSArchitectures: []string{"gfx90a"}}))}
	if _, err := CoverageFindings(bad, caps, false); err == nil || !strings.Contains(err.Error(), "sample 1.0") || !strings.Contains(err.Error(), "lib/libbad.so") {
		t.Errorf("bad target: err = %v", err)
	}
}
