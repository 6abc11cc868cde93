package nixpipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	{"run-time load rules", "lib/runtimedeps/resolve.go", `where := "another package of the release"`, `where := "another package of this release"`},
	{"detection", "detector/facts/detect.go", `return nil, nil, fmt.Errorf("detect %s: %w", root, err)`, `return nil, nil, fmt.Errorf("detect tree %s: %w", root, err)`},
	{"unpack", "detector/unpack/unpack.go", `fmt.Errorf("read header: %w", err)`, `fmt.Errorf("read the header: %w", err)`},
}

// stages are the per-stage output paths of one instantiation of the
// sample's pipeline (testdata/rebuild.nix): what a run builds unless it
// exists.
type stages map[string]map[string]bool

// buildWithOverlay builds pkg into dir with the Go overlay file (""
// none), as scripts/sample.sh builds it.
func buildWithOverlay(t *testing.T, overlay, pkg, out string) {
	t.Helper()
	flags := []string{"-ldflags=-s -w -buildid="}
	if overlay != "" {
		flags = append(flags, "-overlay", overlay)
	}
	if err := goBuild(pkg, out, flags...); err != nil {
		t.Fatal(err)
	}
}

// programs are the builders of one instantiation: the detector, the
// aggregate builder, and the CLI (the reports').
type programs struct {
	cli, detector, aggregate string
}

// buildPrograms builds the three programs into dir with the Go overlay
// file ("" none).
func buildPrograms(t *testing.T, overlay, dir string) programs {
	t.Helper()
	p := programs{filepath.Join(dir, "cuda-redist-find-features"), filepath.Join(dir, "cuda-redist-detector"), filepath.Join(dir, "cuda-redist-aggregate")}
	buildWithOverlay(t, overlay, "./cmd/cuda-redist-find-features", p.cli)
	buildWithOverlay(t, overlay, "./cmd/cuda-redist-detector", p.detector)
	buildWithOverlay(t, overlay, "./cmd/cuda-redist-aggregate", p.aggregate)
	return p
}

// differs says whether any of the three programs' bytes differ from
// base's.
func (p programs) differs(t *testing.T, base programs) bool {
	t.Helper()
	for _, pair := range [][2]string{{p.cli, base.cli}, {p.detector, base.detector}, {p.aggregate, base.aggregate}} {
		a, err := os.ReadFile(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			return true
		}
	}
	return false
}

// instantiateSample evaluates nix/cli.nix over the bundled manifests
// (and their merged index), and every other derivation of each
// manifest's manifestFeatures result (testdata/rebuild.nix), with these
// builders and returns the output paths per stage. Read-only: nothing is
// written to the store.
func instantiateSample(t *testing.T, p programs, pinned bool) stages {
	t.Helper()
	argsFile := rebuildArgsFile(t, p, pinned)
	out := mustNix(t, "nix-instantiate", "--eval", "--strict", "--json", "tests/nixpipeline/testdata/rebuild.nix", "--argstr", "argsFile", argsFile)
	var res rebuildOutputs
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	s := stages{}
	for _, st := range stageOrder {
		s[st] = map[string]bool{}
	}
	s["index"][res.CLI.Index.Out] = true
	for _, m := range res.CLI.Manifests {
		s["aggregate"][m.Aggregate.Out] = true
		for _, e := range m.Entries {
			if pinned && e.PinnedNarHash == nil {
				t.Fatalf("%s has no record in sample/unpacked-hashes.json: process-manifests over a copy of sample/ writes the file", e.RelativePath)
			}
			s["unpack"][e.Unpack.Out] = true
			s["detect"][e.Detect.Out] = true
		}
	}
	for _, m := range res.Others {
		for attr, o := range m {
			if s[attr] == nil || !slices.Contains(otherStages, attr) {
				t.Fatalf("manifestFeatures has a derivation %s that TestRebuildsAfterEdit does not know: give it a stage in otherStages and wantRebuilds", attr)
			}
			s[attr][o] = true
		}
	}
	return s
}

// rebuildOutputs is what testdata/rebuild.nix evaluates to: the output
// paths of nix/cli.nix's derivations and of the manifests' others.
type rebuildOutputs struct {
	CLI struct {
		Manifests []struct {
			Aggregate struct{ Out string } `json:"aggregate"`
			Entries   []struct {
				RelativePath  string               `json:"relativePath"`
				PinnedNarHash *string              `json:"pinnedNarHash"`
				Unpack        struct{ Out string } `json:"unpack"`
				Detect        struct{ Out string } `json:"detect"`
			} `json:"entries"`
		} `json:"manifests"`
		Index struct{ Out string } `json:"index"`
	} `json:"cli"`
	// Others are the manifests' other derivations: attribute → output.
	Others []map[string]string `json:"others"`
}

// rebuildArgsFile writes testdata/rebuild.nix's arguments: these
// builders over the bundled manifests, with their unpacked hashes when
// pinned.
func rebuildArgsFile(t *testing.T, p programs, pinned bool) string {
	t.Helper()
	hashes := any(nil)
	if pinned {
		// The records as the CLI hands them to nix/cli.nix: read and
		// checked, never the file's path.
		data, err := os.ReadFile(filepath.Join(repoRoot(), "sample", "unpacked-hashes.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &hashes); err != nil {
			t.Fatal(err)
		}
	}
	var ms []map[string]any
	for _, v := range []string{"1.0.0", "2.0.0"} {
		ms = append(ms, map[string]any{"redistName": "sample", "version": v, "baseUrl": "file:///sample",
			"manifest": filepath.Join(repoRoot(), "sample", "redistrib_"+v+".json"), "unpackedHashes": hashes})
	}
	args := map[string]any{"cliProgram": p.cli, "detectorProgram": p.detector, "aggregateProgram": p.aggregate,
		"manifests": ms, "index": "sample", "system": nil}
	return writeArgsFile(t, args)
}

// stageOrder is the order of the stages in counts and messages: those of
// nix/cli.nix, then otherStages.
var stageOrder = []string{"unpack", "detect", "aggregate", "index", "buildRedist", "report"}

// otherStages are the derivations of a manifestFeatures result besides
// the aggregate and its entries, by attribute name: the buildRedist
// declarations (the aggregate builder's) and the release report (the
// CLI's by design: docs/design.md).
var otherStages = []string{"buildRedist", "report"}

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

// counts is n in stageOrder, "1/2/3/4/5/6".
func counts(n map[string]int) string {
	var parts []string
	for _, st := range stageOrder {
		parts = append(parts, fmt.Sprint(n[st]))
	}
	return strings.Join(parts, "/")
}

// TestRebuildsAfterEdit measures what the next run over the bundled
// manifests builds after one line of code changes, by the output paths
// of nix/cli.nix's instantiation and of every other derivation of each
// manifest (testdata/rebuild.nix; docs/performance.md has the table),
// and holds it to the table (wantRebuilds):
//
//	CLI-only code (report, --fix, printing) → nothing but the reports
//	the buildRedist rules, the resolution   → only the aggregates (and the
//	of run-time loads                         index, buildRedist, reports)
//	detection code, hashes recorded         → no unpack
//	unpack code, hashes recorded            → no unpack
//
// Every edit changes the bytes of one of the programs; the test checks
// that too, so that a measurement blind to the edits fails. Unpack and detect share the detector, so without
// recorded hashes (a first run) an edit of either rebuilds both; the run
// records them.
func TestRebuildsAfterEdit(t *testing.T) {
	requireNix(t)
	if testing.Short() {
		t.Skip("builds the binaries seven times")
	}
	dir := t.TempDir()
	base := buildPrograms(t, "", filepath.Join(dir, "base"))
	before := map[bool]stages{false: instantiateSample(t, base, false), true: instantiateSample(t, base, true)}
	all := map[string]int{}
	for _, st := range stageOrder {
		all[st] = len(before[false][st])
	}
	var report []string
	for i, e := range edits {
		p := buildPrograms(t, writeOverlay(t, dir, e), filepath.Join(dir, fmt.Sprint(i)))
		now := rebuilt(before[false], instantiateSample(t, p, false))
		pinned := rebuilt(before[true], instantiateSample(t, p, true))
		report = append(report, fmt.Sprintf("%-18s now %s, hashes recorded %s", e.kind, counts(now), counts(pinned)))
		if !p.differs(t, base) {
			t.Errorf("%s (%s): no program's bytes changed: the edit changed nothing", e.kind, e.file)
		}
		checkRebuilds(t, e, all, now, pinned)
	}
	t.Logf("rebuilds over the bundled manifests (%s; %s derivations in all):\n%s",
		strings.Join(stageOrder, "/"), counts(all), strings.Join(report, "\n"))
}

// wantRebuilds is the table: per kind of edit, how many
// derivations of each stage rebuild without and with recorded hashes
// (all: every one of the stage). A report is the CLI's (docs/design.md):
// every edit rebuilds the reports, and nothing else builds on them.
func wantRebuilds(kind string, all map[string]int) (now, pinned map[string]int) {
	every := func(stages ...string) map[string]int {
		n := map[string]int{"report": all["report"]}
		for _, st := range stages {
			n[st] = all[st]
		}
		return n
	}
	cliOnly := every()
	aggregates := every("aggregate", "index", "buildRedist")
	detections := every("detect", "aggregate", "index", "buildRedist")
	switch kind {
	case "buildRedist rules", "run-time load rules":
		return aggregates, aggregates
	case "detection", "unpack":
		// Unpinned, the unpack is the detector's too.
		return all, detections
	}
	return cliOnly, cliOnly
}

// checkRebuilds holds an edit's rebuilds to wantRebuilds.
func checkRebuilds(t *testing.T, e anEdit, all, now, pinned map[string]int) {
	t.Helper()
	wantNow, wantPinned := wantRebuilds(e.kind, all)
	if counts(now) != counts(wantNow) {
		t.Errorf("%s (%s): %s (%s) rebuild, want %s", e.kind, e.file, counts(now), strings.Join(stageOrder, "/"), counts(wantNow))
	}
	if counts(pinned) != counts(wantPinned) {
		t.Errorf("%s (%s), hashes recorded: %s (%s) rebuild, want %s", e.kind, e.file, counts(pinned), strings.Join(stageOrder, "/"), counts(wantPinned))
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
