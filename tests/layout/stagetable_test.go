package layout_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// layoutBlock is the code block of docs/layout.md whose first line starts
// with header, its lines.
func layoutBlock(t *testing.T, header string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```\n")
	for i := 1; i < len(blocks); i += 2 {
		if strings.HasPrefix(blocks[i], header) {
			return strings.Split(strings.TrimRight(blocks[i], "\n"), "\n")
		}
	}
	t.Fatalf("docs/layout.md has no code block starting with %q", header)
	return nil
}

// TestStageTableIsTheStages: each package the stage table of
// docs/layout.md names in its Go package column has the stage its row
// gives (a row without a number: after every stage), as stageOf reads it
// from the path.
func TestStageTableIsTheStages(t *testing.T) {
	lines := layoutBlock(t, "stage ")
	from, to := strings.Index(lines[0], "Go package"), strings.Index(lines[0], "Nix derivation")
	if from < 0 || to < from {
		t.Fatalf("stage table header %q: no Go package and Nix derivation columns", lines[0])
	}
	stage, named := 0, 0
	for _, line := range lines[1:] {
		stage = rowStage(line, stage)
		if len(line) <= from {
			continue
		}
		for _, pkg := range packagesIn(line[from:min(len(line), to)]) {
			named++
			got, ok := stageOf(pkg)
			if !ok {
				t.Errorf("stage table: %s is in no folder the layout knows", pkg)
			} else if got != stage && !(stage == driverStage && got == driverStage) {
				t.Errorf("stage table: %s on the row of stage %d, but its stage is %d", pkg, stage, got)
			}
		}
	}
	if named < 10 {
		t.Errorf("stage table: %d packages read, want every stage's", named)
	}
}

// rowStage is the stage of the stage table's line: the number that
// starts a row, driverStage for a named row without a number (fetch,
// drive), and for a continuation line the stage of the row before.
func rowStage(line string, before int) int {
	if f := strings.Fields(line); len(f) > 0 && line[0] != ' ' {
		stage, _ := strconv.Atoi(f[0])
		return stage
	}
	if len(line) > 2 && line[:2] == "  " && line[2] != ' ' {
		return driverStage
	}
	return before
}

// packagesIn are the package paths (holding a '/') of a Go package cell.
func packagesIn(cell string) []string {
	var pkgs []string
	for _, tok := range strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ' ' }) {
		if strings.Contains(tok, "/") {
			pkgs = append(pkgs, tok)
		}
	}
	return pkgs
}

// TestProgramTableIsWhatEachCompiles: the table of docs/layout.md that
// says what each program compiles lists exactly the module's packages of
// `go list -deps ./cmd/<program>` (its own main aside).
func TestProgramTableIsWhatEachCompiles(t *testing.T) {
	lines := layoutBlock(t, "program ")
	listed := map[string][]string{}
	var prog string
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if line[0] != ' ' {
			prog, f = f[0], f[1:]
		}
		listed[prog] = append(listed[prog], f...)
	}
	entries, err := os.ReadDir(filepath.Join(testenv.RepoRoot(), "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var want []string
		for _, p := range strings.Fields(goList(t, nil, "-deps", "./cmd/"+e.Name())) {
			name, ok := strings.CutPrefix(p, module+"/")
			if ok && name != "cmd/"+e.Name() {
				want = append(want, name)
			} else if p == module {
				want = append(want, "")
			}
		}
		sort.Strings(want)
		got := append([]string(nil), listed[e.Name()]...)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("docs/layout.md: %s compiles\n  %s\nthe table lists\n  %s", e.Name(), strings.Join(want, " "), strings.Join(got, " "))
		}
		delete(listed, e.Name())
	}
	for prog := range listed {
		t.Errorf("docs/layout.md's program table lists %s, which cmd/ does not hold", prog)
	}
}
