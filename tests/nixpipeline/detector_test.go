package nixpipeline

import (
	"strings"
	"testing"
)

// TestDetectorArgument: `detector`, the old name of `program`, still
// names the builder, in nix/pipeline.nix and default.nix alike: the same
// derivations as with `program`, and one trace line saying so. (A Go test
// rather than one of nix/tests.nix: that trace would otherwise be printed
// by `nix flake check`, once per system.)
func TestDetectorArgument(t *testing.T) {
	requireNix(t)
	bin := programBinary(t)
	const attr = `features.sample."1.0.0".entries.cuda_demo_rt.linux-x86_64.None.features`
	for _, c := range []struct{ name, trace string }{
		{"program", ""},
		{"detector", "trace: cuda-redist-find-features: --arg detector is now --arg program"},
	} {
		t.Run("default.nix "+c.name, func(t *testing.T) {
			viaProgram := mustNix(t, "nix-instantiate", "default.nix", "--arg", "program", bin, "-A", attr)
			drv, stderr, err := nix(t, "nix-instantiate", "default.nix", "--arg", c.name, bin, "-A", attr)
			if err != nil || drv != viaProgram {
				t.Fatalf("--arg %s: %q, %v, want %q\n%s", c.name, drv, err, viaProgram, stderr)
			}
			checkTrace(t, stderr, c.trace)
		})
	}
	pipelineDrv := func(arg string) (string, string) {
		expr := `((import ./nix/pipeline.nix { ` + arg + ` = "/no-program"; system = "x86_64-linux"; }).detect {
		  unpacked = "/unpacked"; entry = { relativePath = "a/b.tar.xz"; variant = null; };
		}).drvPath`
		out, stderr, err := nix(t, "nix-instantiate", "--eval", "-E", expr)
		if err != nil {
			t.Fatalf("pipeline.nix with %s: %v\n%s", arg, err, stderr)
		}
		return out, stderr
	}
	viaProgram, stderr := pipelineDrv("program")
	checkTrace(t, stderr, "")
	viaDetector, stderr := pipelineDrv("detector")
	if viaDetector != viaProgram {
		t.Errorf("pipeline.nix: detector gives %s, program %s", viaDetector, viaProgram)
	}
	checkTrace(t, stderr, "trace: cuda-redist-find-features: the argument detector is now program")
}

// checkTrace fails unless stderr's trace lines are exactly want (none
// for "").
func checkTrace(t *testing.T, stderr, want string) {
	t.Helper()
	var traces []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "trace:") {
			traces = append(traces, l)
		}
	}
	if got := strings.Join(traces, "\n"); got != want {
		t.Errorf("trace lines %q, want %q", got, want)
	}
}
