package nixpipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// anEdit is one line of code changed in a file of one kind, for
// TestRebuildsAfterEdit: old is replaced by new (a message or a
// constant: a comment would not change the binaries at all).
type anEdit struct {
	kind, file, old, new string
}

var edits = []anEdit{
	{"CLI: report", "lib/report/model.go", `want one (an aggregate directory`, `want exactly one (an aggregate directory`},
	{"CLI: --fix", "lib/check/nixfix/newfile.go", `no archive to write a package file from`, `no archive to write the package file from`},
	{"CLI: printing", "cmd/cuda-redist-find-features/report.go", `report needs --out DIR`, `report needs --out DIR (a directory)`},
	{"buildRedist rules", "lib/buildredist/analyze.go", `const maxExamples = 5`, `const maxExamples = 6`},
	{"detection", "detector/facts/detect.go", `fmt.Errorf("detect %s: %w", root, err)`, `fmt.Errorf("detect tree %s: %w", root, err)`},
	{"unpack", "detector/unpack/unpack.go", `fmt.Errorf("read header: %w", err)`, `fmt.Errorf("read the header: %w", err)`},
}

// stages are the per-stage output paths of one instantiation of the
// sample's pipeline (nix/cli.nix): what a run builds unless it exists.
type stages map[string]map[string]bool

// buildWithOverlay builds pkg into dir with the Go overlay file (""
// none), as scripts/sample.sh builds it.
func buildWithOverlay(t *testing.T, overlay, pkg, out string) {
	t.Helper()
	args := []string{"build", "-trimpath", "-ldflags=-s -w -buildid=", "-o", out}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// instantiateSample evaluates nix/cli.nix over the bundled manifests
// with these binaries (detector "": program builds everything, as before
// the detector was a program of its own) and returns the output paths
// per stage. Read-only: nothing is written to the store.
func instantiateSample(t *testing.T, program, detector string, pinned bool) stages {
	t.Helper()
	hashes := any(nil)
	if pinned {
		hashes = filepath.Join(repoRoot(), "sample", "unpacked-hashes.json")
	}
	var ms []map[string]any
	for _, v := range []string{"1.0.0", "2.0.0"} {
		ms = append(ms, map[string]any{"redistName": "sample", "version": v, "baseUrl": "file:///sample",
			"manifest": filepath.Join(repoRoot(), "sample", "redistrib_"+v+".json"), "unpackedHashes": hashes})
	}
	args := map[string]any{"program": program, "manifests": ms, "index": nil, "system": nil}
	if detector != "" {
		args["detectorProgram"] = detector
	}
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(argsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustNix(t, "nix-instantiate", "--eval", "--strict", "--json", "nix/cli.nix", "--argstr", "argsFile", argsFile)
	var res struct {
		Manifests []struct {
			Aggregate struct{ Out string } `json:"aggregate"`
			Entries   []struct {
				RelativePath  string               `json:"relativePath"`
				PinnedNarHash *string              `json:"pinnedNarHash"`
				Unpack        struct{ Out string } `json:"unpack"`
				Detect        struct{ Out string } `json:"detect"`
			} `json:"entries"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	s := stages{"unpack": {}, "detect": {}, "aggregate": {}}
	for _, m := range res.Manifests {
		s["aggregate"][m.Aggregate.Out] = true
		for _, e := range m.Entries {
			if pinned && e.PinnedNarHash == nil {
				t.Fatalf("%s has no record in sample/unpacked-hashes.json: process-manifests over a copy of sample/ writes the file", e.RelativePath)
			}
			s["unpack"][e.Unpack.Out] = true
			s["detect"][e.Detect.Out] = true
		}
	}
	return s
}

// rebuilt counts, per stage, the outputs of after that before has not.
func rebuilt(before, after stages) map[string]int {
	n := map[string]int{}
	for stage, outs := range after {
		n[stage] = 0
		for o := range outs {
			if !before[stage][o] {
				n[stage]++
			}
		}
	}
	return n
}

// TestRebuildsAfterEdit measures what the next run over the bundled
// manifests builds after one line of code changes, by the output paths
// of nix/cli.nix's instantiation (docs/performance.md has the table):
//
//	CLI-only code (report, --fix, printing) → no unpack or detect
//	the buildRedist rules                   → no unpack or detect
//	detection code, hashes recorded         → no unpack
//	unpack code, hashes recorded            → no unpack
//
// and, with one binary as every builder (before), everything. Unpack and
// detect share the detector, so without recorded hashes (a first run) an
// edit of either rebuilds both; the run records them. The aggregates are
// the CLI's, so any edit but the detector's rebuilds them (two small
// derivations of the sample).
func TestRebuildsAfterEdit(t *testing.T) {
	requireNix(t)
	if testing.Short() {
		t.Skip("builds the binaries seven times")
	}
	dir := t.TempDir()
	program, detector := filepath.Join(dir, "base", "cuda-redist-find-features"), filepath.Join(dir, "base", "cuda-redist-detector")
	buildWithOverlay(t, "", "./cmd/cuda-redist-find-features", program)
	buildWithOverlay(t, "", "./cmd/cuda-redist-detector", detector)
	base := map[bool]stages{false: instantiateSample(t, program, detector, false), true: instantiateSample(t, program, detector, true)}
	baseOne := instantiateSample(t, program, "", false)
	var report []string
	for i, e := range edits {
		overlay := writeOverlay(t, dir, e)
		p, d := filepath.Join(dir, fmt.Sprint(i), "cuda-redist-find-features"), filepath.Join(dir, fmt.Sprint(i), "cuda-redist-detector")
		buildWithOverlay(t, overlay, "./cmd/cuda-redist-find-features", p)
		buildWithOverlay(t, overlay, "./cmd/cuda-redist-detector", d)
		now := rebuilt(base[false], instantiateSample(t, p, d, false))
		pinned := rebuilt(base[true], instantiateSample(t, p, d, true))
		one := rebuilt(baseOne, instantiateSample(t, p, "", false))
		report = append(report, fmt.Sprintf("%-18s unpack/detect/aggregate: before %d/%d/%d, now %d/%d/%d, hashes recorded %d/%d/%d", e.kind,
			one["unpack"], one["detect"], one["aggregate"], now["unpack"], now["detect"], now["aggregate"], pinned["unpack"], pinned["detect"], pinned["aggregate"]))
		checkRebuilds(t, e, now, pinned)
	}
	t.Logf("rebuilds over the bundled manifests (%d unpacks, %d detections, %d aggregates):\n%s",
		len(base[false]["unpack"]), len(base[false]["detect"]), len(base[false]["aggregate"]), strings.Join(report, "\n"))
}

// checkRebuilds holds an edit's rebuilds to the table of TestRebuildsAfterEdit.
func checkRebuilds(t *testing.T, e anEdit, now, pinned map[string]int) {
	t.Helper()
	want := map[string][]string{
		"buildRedist rules": {"unpack", "detect"},
		"detection":         {},
		"unpack":            {},
	}
	none, ok := want[e.kind]
	if !ok {
		none = []string{"unpack", "detect"}
	}
	for _, stage := range none {
		if now[stage] != 0 {
			t.Errorf("%s (%s): %d %s derivations rebuild, want none", e.kind, e.file, now[stage], stage)
		}
	}
	if pinned["unpack"] != 0 {
		t.Errorf("%s (%s), hashes recorded: %d unpacks rebuild, want none", e.kind, e.file, pinned["unpack"])
	}
	if e.kind == "buildRedist rules" && now["aggregate"] == 0 {
		t.Errorf("a change of the buildRedist rules rebuilds no aggregate: the edit %s changed nothing", e.file)
	}
}

// writeOverlay writes the edited file and a go build -overlay file
// replacing the original with it.
func writeOverlay(t *testing.T, dir string, e anEdit) string {
	t.Helper()
	src := filepath.Join(repoRoot(), e.file)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), e.old) != 1 {
		t.Fatalf("%s: %q is not there once: update the edits of TestRebuildsAfterEdit", e.file, e.old)
	}
	edited := filepath.Join(dir, strings.ReplaceAll(e.file, "/", "_"))
	if err := os.WriteFile(edited, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ov, err := json.Marshal(map[string]any{"Replace": map[string]string{src: edited}})
	if err != nil {
		t.Fatal(err)
	}
	overlay := edited + ".overlay.json"
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}
