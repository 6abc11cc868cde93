package nixpipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckNixpkgsCapabilities: the sample's libraries, detected by Nix,
// against cudaCapabilities 7.5 and 9.0a. cuda_demo_rt has sm_52, sm_80 and
// sm_90 cubins and sm_90 PTX: nothing for a 7.5 GPU (sm_52 serves 5.x, PTX
// only later GPUs). libdemo_versioned's lib/11 and libdemo_variant's
// cuda11 (sm_60, sm_70) nothing for 9.0; libdemo_variant on linux-sbsa
// (sm_80, sm_90) nothing for 7.5. A hint by default (exit 0 with the good
// package files), an error with --require-capabilities (exit 1).
func TestCheckNixpkgsCapabilities(t *testing.T) {
	requireNix(t)
	sample := sampleAsRedist(t)
	pkgs := packagesDir(t, goodPackages)
	msg := func(caps, sass string) string {
		return "no SASS runs on and no PTX JIT-compiles for cudaCapabilities " + caps + " (the library has SASS " + sass + "; PTX "
	}
	want := []string{
		"cuda_demo_rt linux-sbsa None 1.0.0: lib/libdemo_rt.so.1.0.0: " + msg("7.5", "sm_52 sm_80 sm_90") + "sm_90)",
		"cuda_demo_rt linux-x86_64 None 1.0.0: lib/libdemo_rt.so.1.0.0: " + msg("7.5", "sm_52 sm_80 sm_90") + "sm_90)",
		"cuda_demo_rt linux-x86_64 None 1.0.0: lib/libdemo_rt_static.a: " + msg("7.5", "sm_80 sm_90") + "none)",
		"libdemo_variant linux-sbsa cuda12 2.0.0: lib/libdemo_variant.so.2: " + msg("7.5", "sm_80 sm_90") + "none)",
		"libdemo_variant linux-sbsa cuda12 2.0.0: lib/libdemo_variant_static.a: " + msg("7.5", "sm_80 sm_90") + "none)",
		"libdemo_variant linux-x86_64 cuda11 2.0.0: lib/libdemo_variant.so.2: " + msg("9.0a", "sm_60 sm_70") + "none)",
		"libdemo_variant linux-x86_64 cuda11 2.0.0: lib/libdemo_variant_static.a: " + msg("9.0a", "sm_60 sm_70") + "none)",
		"libdemo_versioned linux-x86_64 None 1.0.0: lib/11/libdemo_v.so: " + msg("9.0a", "sm_60 sm_70") + "none)",
	}
	for _, tc := range []struct {
		extra []string
		code  int
		level string
	}{
		{[]string{"--cuda-capabilities", "7.5,9.0a"}, 0, "HINT  "},
		{[]string{"--cuda-capabilities", "7.5,9.0a", "--require-capabilities"}, 1, "ERROR "},
	} {
		code, lines, stderr := checkNixpkgs(t, pkgs, sample, tc.extra...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d\n%s", tc.extra, code, tc.code, stderr)
		}
		var w []string
		for _, l := range want {
			w = append(w, tc.level+l)
		}
		if diff := cmp.Diff(w, withoutDropped(lines)); diff != "" {
			t.Errorf("%v: check-nixpkgs lines (-want +got):\n%s", tc.extra, diff)
		}
	}
	// One manifest (--version), a family entry: one library, both
	// capabilities named in its one finding.
	code, lines, stderr := checkNixpkgs(t, pkgs, sample, "--cuda-capabilities", "8.0,9.0f", "--require-capabilities", "--version", "1.0.0")
	wantLine := "ERROR libdemo_versioned linux-x86_64 None 1.0.0: lib/11/libdemo_v.so: " + msg("8.0, 9.0f", "sm_60 sm_70") + "none)"
	if code != 1 || !cmp.Equal(lines, []string{wantLine}) {
		t.Errorf("8.0,9.0f on 1.0.0: exit %d, lines %q\n%s", code, lines, stderr)
	}
}
