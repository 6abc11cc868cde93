// Package layout_test holds the repository's tree to the pipeline it
// implements: every package has a stage, no package imports a later
// stage, and docs/layout.md names every package.
package layout_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

const module = "github.com/nix-cuda/cuda-redist-find-features"

// stage ranks the packages in pipeline order: manifest → (fetch, in Nix
// only) → unpack → detect → aggregate → what reads the results → what
// drives it all. A package may import its own stage or earlier ones.
var stage = map[string]int{
	// Shared helpers that know nothing of the pipeline.
	"lib/atomicfile":   0,
	"lib/jsoncheck":    0,
	"lib/symlink":      0,
	"lib/builderattrs": 0,
	"lib/interrupt":    0,
	"lib/safetext":     0,
	"lib/jsonpos":      0,
	"lib/ansi":         0,
	// 1: NVIDIA's manifests.
	"lib/manifest":          1,
	"lib/manifest/download": 1,
	// 2: unpack.
	"lib/unpack":          2,
	"lib/unpack/xz":       2,
	"lib/unpack/xz/crc64": 2,
	// 3: detect, with the readers it uses, the buildRedist simulation it
	// runs per archive, and the feature formats it writes.
	"detector":         3,
	"detector/elfinfo": 3,
	"detector/fatbin":  3,
	"detector/narhash": 3,
	"lib/capability":   3, // what runs where, and the target order fatbin sorts by
	"lib/buildredist":  3,
	"lib/features":     3,
	// 4: aggregate.
	"lib/aggregate": 4,
	// 5: what reads the results: reports, soname dependencies, schemas,
	// the check of Nixpkgs' package files.
	"lib/report":                   5,
	"lib/deps":                     5,
	"lib/coverage":                 5,
	"lib/schema":                   5,
	"lib/buildredist/pkgeval":      5,
	"lib/buildredist/nixpkgscheck": 5,
	"lib/buildredist/nixfix":       5,
	// 6: driving Nix and the CLI.
	"lib/nixlog":                    6,
	"lib/nixdriver":                 6,
	"cmd/cuda-redist-find-features": 6,
}

type pkg struct {
	ImportPath string
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
		own, ok := stage[name]
		if !ok {
			t.Errorf("package %s has no stage: add it to this test and to docs/layout.md", name)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := rel(imp)
			if strings.HasPrefix(dep, "tests/") {
				t.Errorf("%s imports test code %s", name, dep)
			} else if s, ok := stage[dep]; ok && s > own {
				t.Errorf("%s (stage %d) imports %s (stage %d): an import back up the pipeline", name, own, dep, s)
			}
		}
	}
}

// TestStagesAreReal: every package this test ranks exists, so the list
// cannot rot.
func TestStagesAreReal(t *testing.T) {
	for name := range stage {
		if _, err := os.Stat(filepath.Join(testenv.RepoRoot(), name)); err != nil {
			t.Errorf("stage lists %s: %v", name, err)
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
	text := string(doc)
	for _, p := range listPackages(t) {
		name := rel(p.ImportPath)
		if !strings.Contains(text, name+"/") {
			t.Errorf("docs/layout.md does not name %s/", name)
		}
	}
}
