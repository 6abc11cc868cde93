package nixpipeline

import (
	"strings"
	"testing"
)

// TestNixArgumentNames: default.nix and nix/pipeline.nix take the
// builders under their names alone (detectorProgram, aggregateProgram;
// the CLI as cliProgram, for the reports): the old names (program,
// detector) are refused, and a missing builder is named.
func TestNixArgumentNames(t *testing.T) {
	requireNix(t)
	det, agg := detectorBinary(t), aggregateBinary(t)
	progs := `detectorProgram = ` + det + `; aggregateProgram = ` + agg + `;`
	for _, c := range []struct{ args, want string }{
		{`program = ` + det + `; ` + progs, "unexpected argument 'program'"},
		{`detector = ` + det + `; ` + progs, "unexpected argument 'detector'"},
		{`aggregateProgram = ` + agg + `;`, "pass the static detector: --arg detectorProgram"},
		{`detectorProgram = ` + det + `;`, "pass the aggregate builder: --arg aggregateProgram"},
	} {
		expr := `(import ./default.nix { ` + c.args + ` }).features.sample."1.0.0".drvPath`
		_, stderr, err := nix(t, "nix-instantiate", "--eval", "-E", expr)
		if err == nil || !strings.Contains(stderr, c.want) {
			t.Errorf("default.nix { %s }: %v, want an error with %q:\n%s", c.args, err, c.want, stderr)
		}
	}
	// The two builders alone: no CLI is needed for the features.
	mustNix(t, "nix-instantiate", "--eval", "-E", `(import ./default.nix { `+progs+` }).features.sample."1.0.0".drvPath`)
	expr := `((import ./nix/pipeline.nix { program = "/no-program"; system = "x86_64-linux"; }).detect {
	  unpacked = "/unpacked"; entry = { relativePath = "a/b.tar.xz"; variant = null; };
	}).drvPath`
	if _, stderr, err := nix(t, "nix-instantiate", "--eval", "-E", expr); err == nil || !strings.Contains(stderr, "unexpected argument 'program'") {
		t.Errorf("pipeline.nix with program: %v, want it refused:\n%s", err, stderr)
	}
}
