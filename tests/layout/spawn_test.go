package layout_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// spawner is the one package that starts processes: Nix's commands, each
// in its process group, dying with the program, interrupted and bounded
// alike (docs/safety.md).
const spawner = "lib/nixexec"

// otherSpawns are the other ways Go starts a program.
var otherSpawns = regexp.MustCompile(`\b(os\.StartProcess|syscall\.(Exec|ForkExec|StartProcess))\(`)

// TestOnlyNixexecRunsCommands: no package but lib/nixexec (test code
// aside: tests/ and _test.go files) imports os/exec or starts a process
// another way; every nix-* command thus goes through it.
func TestOnlyNixexecRunsCommands(t *testing.T) {
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if name == spawner || strings.HasPrefix(name, "tests/") {
			continue
		}
		for _, imp := range p.Imports {
			if imp == "os/exec" {
				t.Errorf("%s imports os/exec: run Nix through %s (nixexec.Command)", name, spawner)
			}
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if m := otherSpawns.Find(data); m != nil {
				t.Errorf("%s/%s starts a process with %s: run Nix through %s", name, f, m, spawner)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(testenv.RepoRoot(), spawner)); err != nil {
		t.Errorf("no %s: %v", spawner, err)
	}
}
