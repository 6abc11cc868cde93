// Package layout_test holds the repository's tree to the pipeline it
// implements: every package has a stage, no package imports a later
// stage, and docs/layout.md names every package.
package layout_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

const module = "github.com/nix-cuda/cuda-redist-find-features"

// stages rank the pipeline's packages in order: manifest → (fetch, in
// Nix only) → unpack → the per-archive facts → aggregate (with the
// buildRedist rules) → what reads the results (check and report are both
// stage 5) → what drives it all. A package's stage is its path: the
// longest prefix of it in stages. detector/ holds what runs in the
// sandbox (unpack, then the facts); lib/ the rest of the pipeline, and
// besides it the formats and shared helpers, which know no stage (rank
// 0). A package may import its own stage or earlier ones.
var stages = map[string]int{
	"lib/manifest":    1,
	"detector/unpack": 2,
	"detector":        3,
	"lib/buildredist": 4,
	"lib/aggregate":   4,
	"lib/runtimedeps": 4,
	"lib/check":       5,
	"lib/report":      5,
	"lib/nixdriver":   driverStage,
	"cmd":             driverStage,
	// nix/: the Nix library, and package nixlib that carries it inside
	// the binary for the driver.
	"nix": driverStage,
}

// driverStage is the rank of lib/nixdriver/, nix/ and cmd/: after every
// stage.
const driverStage = 6

// stageOf is the rank of a package from its path, and whether the path is
// one the layout knows.
func stageOf(name string) (int, bool) {
	for prefix := name; prefix != "." && prefix != ""; prefix = path.Dir(prefix) {
		if s, ok := stages[prefix]; ok {
			return s, true
		}
	}
	parts := strings.Split(name, "/")
	if parts[0] == "lib" && len(parts) > 1 {
		return 0, true
	}
	return 0, false
}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = testenv.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

// TestNoImportRunsBackUpThePipeline: a package imports only its own stage
// or earlier ones (test files aside: they may use anything).
func TestNoImportRunsBackUpThePipeline(t *testing.T) {
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if strings.HasPrefix(name, "tests/") || strings.HasPrefix(name, "scripts/") {
			continue
		}
		own, ok := stageOf(name)
		if !ok {
			t.Errorf("package %s is in no folder the layout knows (detector/, lib/, nix/, cmd/): move it, or add its stage to this test and docs/layout.md", name)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := rel(imp)
			if strings.HasPrefix(dep, "tests/") {
				t.Errorf("%s imports test code %s", name, dep)
			} else if s, _ := stageOf(dep); s > own {
				t.Errorf("%s (stage %d) imports %s (stage %d): an import back up the pipeline", name, own, dep, s)
			}
		}
	}
}

// TestStagesAreReal: every stage this test ranks has its folder, so the
// list cannot rot.
func TestStagesAreReal(t *testing.T) {
	for name := range stages {
		if _, err := os.Stat(filepath.Join(testenv.RepoRoot(), filepath.FromSlash(name))); err != nil {
			t.Errorf("stages lists %s: %v", name, err)
		}
	}
}

// TestStageOf: the rule that reads a stage from a path.
func TestStageOf(t *testing.T) {
	for name, want := range map[string]int{
		"lib/jsoncheck":                 0,
		"lib/manifest/download":         1,
		"detector/unpack/xz":            2,
		"detector/facts":                3,
		"detector/elfinfo":              3,
		"lib/buildredist":               4,
		"lib/aggregate":                 4,
		"lib/check/nixpkgscheck":        5,
		"lib/report":                    5,
		"lib/nixdriver/nixlog":          6,
		"cmd/cuda-redist-find-features": 6,
	} {
		if got, ok := stageOf(name); !ok || got != want {
			t.Errorf("stageOf(%s) = %d, %v; want %d, true", name, got, ok, want)
		}
	}
	for _, name := range []string{"stage", "stage/fetch", "lib", "internal/x", "nixdriver"} {
		if _, ok := stageOf(name); ok {
			t.Errorf("stageOf(%s) is known; want unknown", name)
		}
	}
}

// TestLayoutDocNamesEveryPackage: docs/layout.md, the map of the tree,
// names every package directory.
func TestLayoutDocNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A package is named at the start of a line of the map (several may
	// share a line: "lib/interrupt/ lib/safetext/"), so a parent does not
	// pass for documented on its children's lines.
	named := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		for _, field := range strings.Fields(line) {
			if !strings.HasSuffix(field, "/") {
				break
			}
			named[strings.TrimSuffix(field, "/")] = true
		}
	}
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if !named[name] {
			t.Errorf("docs/layout.md names no %s/ at the start of a line", name)
		}
	}
}

// arrows are the imports the tree forbids whatever the stages say: the
// CLI's packages (lib/) never run the sandbox's code (detector/) on the
// host, and the Nix library's Go package (nix/) carries the Nix files
// alone, its file list on the Nix side (nix/library-files.txt), so it
// imports nothing of lib/.
var arrows = []struct{ from, to, why string }{
	{"lib", "detector", "the detector's code runs in the sandbox, built by Nix, never on the host"},
	{"nix", "lib", "the Nix library's files are listed on the Nix side (nix/library-files.txt)"},
}

// pendingArrows are imports of arrows still in the tree, by "from -> to",
// with what removes them. Each must still occur (a stale entry fails), so
// the list only shrinks.
var pendingArrows = map[string]string{}

// under says whether the package name is dir or below it.
func under(name, dir string) bool { return name == dir || strings.HasPrefix(name, dir+"/") }

// TestNoForbiddenArrow: no package of lib/ imports detector/, and no
// package of nix/ imports lib/ (test files aside).
func TestNoForbiddenArrow(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := rel(imp)
			for _, a := range arrows {
				if !under(name, a.from) || !under(dep, a.to) {
					continue
				}
				if _, pending := pendingArrows[name+" -> "+dep]; pending {
					seen[name+" -> "+dep] = true
					continue
				}
				t.Errorf("%s imports %s: no package of %s/ may import %s/ (%s)", name, dep, a.from, a.to, a.why)
			}
		}
	}
	for arrow := range pendingArrows {
		if !seen[arrow] {
			t.Errorf("pendingArrows lists %s, which no package imports any more: remove it", arrow)
		}
	}
}
