package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func sampleDir(v string) string {
	return filepath.Join(testenv.RepoRoot(), "tests", "golden", "sample", v)
}

func readAll(t *testing.T, dirs ...string) []*Aggregate {
	t.Helper()
	var out []*Aggregate
	for _, d := range dirs {
		a, err := ReadAggregate(d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

func findArchive(t *testing.T, rel Release, pkg, platform string, variant manifest.Variant) Archive {
	t.Helper()
	for _, p := range rel.Packages {
		for _, a := range p.Archives {
			if p.Name == pkg && a.Platform == platform && a.Variant == variant {
				return a
			}
		}
	}
	t.Fatalf("%s has no %s/%s/%s", rel.Version, pkg, platform, variant)
	return Archive{}
}

func TestSampleModel(t *testing.T) {
	// Given newest first: the report orders them.
	r, err := Build(readAll(t, sampleDir("2.0.0"), sampleDir("1.0.0")), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Redist != "sample" || !reflect.DeepEqual(r.Versions(), []string{"1.0.0", "2.0.0"}) {
		t.Fatalf("redist %q versions %v", r.Redist, r.Versions())
	}
	rt := findArchive(t, r.Releases[0], "cuda_demo_rt", "linux-x86_64", manifest.NoVariant)
	want := Archive{
		Platform: "linux-x86_64", RelativePath: rt.RelativePath, SHA256: rt.SHA256, NarHash: rt.NarHash,
		Outputs: []string{"out", "include", "lib", "static", "stubs"}, LegacyOutputs: []string{"out", "dev", "include", "lib", "static", "stubs"},
		SASS: []string{"sm_52", "sm_80", "sm_90"}, PTX: []string{"sm_90"}, TopPTX: "sm_90",
		Provides: []string{"libdemo_driver.so.1", "libdemo_rt.so.1"}, Needs: []string{"libc.so.6", "libm.so.6"},
	}
	if diff := cmp.Diff(want, rt); diff != "" {
		t.Errorf("cuda_demo_rt (-want +got):\n%s", diff)
	}
	if got := r.Releases[1].Architectures; !reflect.DeepEqual(got, []string{"sm_60", "sm_70", "sm_80", "sm_90"}) {
		t.Errorf("2.0.0 architectures %v", got)
	}
	// libdemo_variant needs libcudart, which no sample package provides.
	wantGraph := Graph{
		Nodes: []Node{{Name: "demo_src"}, {Name: "libdemo_variant"}, {Name: "libcudart.so.11", External: true}, {Name: "libcudart.so.12", External: true}},
		Edges: []Edge{{From: "libdemo_variant", To: "libcudart.so.11", Sonames: []string{"libcudart.so.11"}}, {From: "libdemo_variant", To: "libcudart.so.12", Sonames: []string{"libcudart.so.12"}}},
	}
	if diff := cmp.Diff(wantGraph, r.Releases[1].Graph); diff != "" {
		t.Errorf("2.0.0 graph (-want +got):\n%s", diff)
	}
	c := r.Changes
	if c == nil || c.Old != "1.0.0" || c.New != "2.0.0" ||
		!reflect.DeepEqual(c.PackagesAdded, []string{"demo_src", "libdemo_variant"}) ||
		!reflect.DeepEqual(c.PackagesRemoved, []string{"cuda_demo_rt", "cuda_demo_tools", "demo_samples", "libdemo_versioned"}) {
		t.Errorf("changes %+v", c)
	}
}

// mutated writes a copy of the sample 2.0.0 aggregate as version, changed
// by edit, and returns its directory.
func mutated(t *testing.T, version string, edit func(features.Index, features.Detail)) string {
	t.Helper()
	a := readAll(t, sampleDir("2.0.0"))[0]
	pkgs := a.Index["sample"]["2.0.0"]
	index := features.Index{"sample": {version: pkgs}}
	edit(index, a.Detail)
	dir := filepath.Join(t.TempDir(), version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"index.json": index, "detail.json": a.Detail} {
		data, err := features.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// handMade are two releases that differ in every way a report tells:
// 3.0.0 drops demo_src, adds cuda_cudart (which libdemo_variant then
// needs), drops sm_70 and the static output of libdemo_variant on
// linux-x86_64 cuda12 (legacy and buildRedist's), gains PTX, and re-uploads linux-sbsa cuda12 with
// the same version string but another narHash.
func handMade(t *testing.T) (old, new string) {
	old = mutated(t, "2.0.0", func(features.Index, features.Detail) {})
	new = mutated(t, "3.0.0", func(idx features.Index, d features.Detail) {
		pkgs := idx["sample"]["3.0.0"]
		delete(pkgs, "demo_src")
		delete(d, "demo_src")
		pkgs["cuda_cudart"] = features.IndexPackage{ReleaseInfo: features.ReleaseInfo{Name: "CUDA Runtime", Version: "12.0.1"}, Packages: map[string]map[string]features.IndexLeaf{}}
		f := &features.Features{Outputs: map[string]bool{"out": true, "lib": true}, NarHash: "sha256-" + strings.Repeat("A", 43) + "=",
			BuildRedist: features.BuildRedistFacts{Outputs: []string{"out", "lib"}},
			Libraries:   []features.Library{{Path: "lib/libcudart.so.12", Kind: "shared", Soname: "libcudart.so.12", Needed: []string{"libc.so.6", "libdl.so.2", "ld-linux-x86-64.so.2"}}}}
		d["cuda_cudart"] = map[string]map[string]features.DetailEntry{"linux-x86_64": {"None": {SHA256: strings.Repeat("c", 64), RelativePath: "cuda_cudart/x.tar.xz", Features: f}}}

		x86 := d["libdemo_variant"]["linux-x86_64"]["cuda12"].Features
		x86.Outputs["static"] = false
		x86.BuildRedist.Outputs = without(x86.BuildRedist.Outputs, "static")
		for i := range x86.Libraries {
			lib := &x86.Libraries[i]
			lib.SASSArchitectures = without(lib.SASSArchitectures, "sm_70")
			if lib.Kind == "shared" {
				lib.PTXArchitectures = []string{"sm_90"}
				lib.Needed = append(lib.Needed, "libcuda.so.1", "libstdc++.so.6")
			}
		}
		sbsa := d["libdemo_variant"]["linux-sbsa"]["cuda12"]
		sbsa.Features.NarHash = "sha256-" + strings.Repeat("B", 43) + "="
	})
	return old, new
}

func without(l []string, s string) []string {
	var out []string
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func TestDiffHandMade(t *testing.T) {
	old, new := handMade(t)
	r, err := Build(readAll(t, old, new), "")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Changes
	if !reflect.DeepEqual(c.PackagesAdded, []string{"cuda_cudart"}) || !reflect.DeepEqual(c.PackagesRemoved, []string{"demo_src"}) {
		t.Errorf("added %v removed %v", c.PackagesAdded, c.PackagesRemoved)
	}
	e := func(l ...string) []string { return append([]string{}, l...) }
	want := []ArchiveChange{
		{Package: "libdemo_variant", Platform: "linux-sbsa", Variant: "cuda12",
			OutputsGained: e(), OutputsLost: e(), SASSGained: e(), SASSLost: e(), PTXGained: e(), PTXLost: e(), SonamesAdded: e(), SonamesRemoved: e(),
			NarHashChanged: true, OldNarHash: "sha256-ks7x68Kta3TvU6IUikZ09qhf67MToak2EnixyJ/+HQw=", NewNarHash: "sha256-" + strings.Repeat("B", 43) + "=", Version: "2.0.1"},
		{Package: "libdemo_variant", Platform: "linux-x86_64", Variant: "cuda12",
			OutputsGained: e(), OutputsLost: e("static"), SASSGained: e(), SASSLost: e("sm_70"), PTXGained: e("sm_90"), PTXLost: e(), SonamesAdded: e(), SonamesRemoved: e()},
	}
	if diff := cmp.Diff(want, c.Archives); diff != "" {
		t.Errorf("archive changes (-want +got):\n%s", diff)
	}
	// The graph now has a package edge; system libraries stay out.
	g := r.Releases[1].Graph
	wantEdges := []Edge{
		{From: "libdemo_variant", To: "cuda_cudart", Sonames: []string{"libcudart.so.12"}},
		{From: "libdemo_variant", To: "libcudart.so.11", Sonames: []string{"libcudart.so.11"}},
	}
	if diff := cmp.Diff(wantEdges, g.Edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := c.WriteText(&text, r.Redist); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"sample 2.0.0 -> 3.0.0\n",
		"Packages added:\n- cuda_cudart\n",
		"Packages removed:\n- demo_src\n",
		"  - linux-x86_64 cuda12: outputs -static; SASS -sm_70; PTX +sm_90\n",
		"  - linux-sbsa cuda12: narHash changed with the same version 2.0.1 (sha256-ks7x68Kta3TvU6IUikZ09qhf67MToak2EnixyJ/+HQw= -> sha256-BBBB",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, text.String())
		}
	}
	// A version bump with another narHash is no silent re-upload.
	new2 := mutated(t, "3.0.0", func(idx features.Index, d features.Detail) {
		p := idx["sample"]["3.0.0"]["libdemo_variant"]
		p.ReleaseInfo.Version = "2.0.2"
		idx["sample"]["3.0.0"]["libdemo_variant"] = p
		d["libdemo_variant"]["linux-sbsa"]["cuda12"].Features.NarHash = "sha256-" + strings.Repeat("B", 43) + "="
	})
	r2, err := Build(readAll(t, old, new2), "")
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Changes.Empty() {
		t.Errorf("version bump reported as changes: %+v", r2.Changes)
	}
	// --against picks the release compared with.
	r3, err := Build(readAll(t, sampleDir("1.0.0"), old, new), "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if r3.Changes.Old != "1.0.0" || r3.Changes.New != "3.0.0" {
		t.Errorf("--against 1.0.0 compared %s with %s", r3.Changes.Old, r3.Changes.New)
	}
}

func TestBuildErrors(t *testing.T) {
	old, _ := handMade(t)
	real := filepath.Join("testdata", "real", "cuda", "11.8.0")
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "index.json"), []byte(`{"x": {"1": {}}}`), 0o644)
	os.WriteFile(filepath.Join(bad, "detail.json"), []byte(`{"p": [}`), 0o644)
	for _, tc := range []struct {
		dirs    []string
		against string
		want    string
	}{
		{[]string{sampleDir("1.0.0"), real}, "", "two redists"},
		{[]string{sampleDir("2.0.0"), old}, "", "given twice"},
		{[]string{sampleDir("1.0.0"), sampleDir("2.0.0")}, "9.9", "--against 9.9: not among"},
		{[]string{sampleDir("1.0.0"), sampleDir("2.0.0")}, "2.0.0", "newest release itself"},
	} {
		_, err := Build(readAll(t, tc.dirs...), tc.against)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v --against %q: %v, want %q", tc.dirs, tc.against, err, tc.want)
		}
	}
	if _, err := Build(nil, ""); err == nil {
		t.Error("no aggregates accepted")
	}
	for _, dir := range []string{t.TempDir(), bad} {
		if _, err := ReadAggregate(dir); err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("ReadAggregate(%s): %v, want an error naming it", dir, err)
		}
	}
}

func TestArchOrderAndSystemLibs(t *testing.T) {
	got := sortArchs([]string{"sm_121f", "sm_100f", "sm_90a", "sm_100", "sm_100a", "sm_52", "sm_90", "sm_121"})
	want := []string{"sm_52", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_100a", "sm_121", "sm_121f"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sortArchs: %v", got)
	}
	for s, sys := range map[string]bool{"libc.so.6": true, "libstdc++.so.6": true, "ld-linux-aarch64.so.1": true, "libcuda.so.1": true, "libgcc_s.so.1": true,
		"libcudart.so.12": false, "libcuda.so": false, "libcublas.so.12": false, "libcrypt.so.1": false, "libm.so.6": true, "libmvec.so.1": false} {
		if IsSystemLib(s) != sys {
			t.Errorf("IsSystemLib(%q) = %v", s, !sys)
		}
	}
	if CompareVersions("9.10.0", "9.8.0") <= 0 || CompareVersions("12.2.2", "12.2.2") != 0 || CompareVersions("1.0", "1.0.1") >= 0 {
		t.Error("CompareVersions")
	}
}

func TestLayout(t *testing.T) {
	g := Graph{
		Nodes: []Node{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "x", External: true}},
		Edges: []Edge{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "a", To: "c"}, {From: "d", To: "x"}, {From: "c", To: "a"}},
	}
	lay := LayoutGraph(g) // with a cycle a→b→c→a: must end
	layer := map[string]int{}
	for _, b := range lay.Boxes {
		layer[b.Name] = b.Layer
		if b.X+b.W > lay.Width || b.Y+b.H > lay.Height {
			t.Errorf("%s outside the drawing", b.Name)
		}
	}
	// Longest path: whatever the cycle's entry, a needs b needs c.
	if !(layer["a"] > layer["b"]) || layer["d"] != layer["x"]+1 || layer["x"] != 0 {
		t.Errorf("layers %v", layer)
	}
	if len(lay.Lines) != len(g.Edges) {
		t.Errorf("%d lines for %d edges", len(lay.Lines), len(g.Edges))
	}
	// Left to right: a package stands left of what it needs, and its
	// arrows point right (only the cycle's back edge c → a points left).
	x := map[string]int{}
	for _, b := range lay.Boxes {
		x[b.Name] = b.X
	}
	if !(x["a"] < x["b"] && x["b"] < x["c"] && x["d"] < x["x"]) {
		t.Errorf("columns not left to right from dependents to dependencies: %v", x)
	}
	for _, l := range lay.Lines {
		if right := l.X2 > l.X1; right != (l.From != "c") {
			t.Errorf("line %s → %s from x %d to %d", l.From, l.To, l.X1, l.X2)
		}
	}
}

// TestSampleJSONGolden compares report.json of the sample with
// testdata/sample-report.json; UPDATE_GOLDEN=1 rewrites it.
func TestSampleJSONGolden(t *testing.T) {
	r, err := Build(readAll(t, sampleDir("1.0.0"), sampleDir("2.0.0")), "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "sample-report.json")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("report.json (-golden +got):\n%s", diff)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || !reflect.DeepEqual(&back, r) {
		t.Errorf("report.json does not read back as the model: %v", err)
	}
}

// TestFamilyAndSpecificColumns: with an f or a target, the matrix groups
// each SM's columns under its number, labels them sm, f, a, says in the
// header title where each runs, and shades the family and specific
// columns; the newest PTX marked is the newest generic one.
func TestFamilyAndSpecificColumns(t *testing.T) {
	arc := Archive{Platform: "linux-x86_64", SASS: []string{"sm_90", "sm_90a", "sm_100f", "sm_120f"}, PTX: []string{"sm_90", "sm_120f"}}
	arc.TopPTX = topPTX(arc.PTX)
	if arc.TopPTX != "sm_90" {
		t.Errorf("topPTX(%v) = %q, want sm_90: a family PTX serves only its family", arc.PTX, arc.TopPTX)
	}
	rel := Release{Version: "13.0.0", Platforms: []string{"linux-x86_64"}, Architectures: []string{"sm_90", "sm_90a", "sm_100f", "sm_120f"},
		Packages: []Package{{Name: "libcublas", Archives: []Archive{arc}}}}
	ms := buildMatrices(rel)
	if len(ms) != 1 {
		t.Fatalf("%d matrices", len(ms))
	}
	m := ms[0]
	if want := []archGroup{{"sm_90", 2}, {"sm_100", 1}, {"sm_120", 1}}; !reflect.DeepEqual(m.Groups, want) {
		t.Errorf("groups %v, want %v", m.Groups, want)
	}
	var labels, classes []string
	for _, h := range m.Heads {
		labels, classes = append(labels, h.Label), append(classes, h.Class)
	}
	if want := []string{"sm", "a", "f", "f"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	if want := []string{"arch sub", "arch spec sub", "arch fam sub", "arch fam sub"}; !reflect.DeepEqual(classes, want) {
		t.Errorf("classes %v, want %v", classes, want)
	}
	if h := m.Heads[2].Title; h != "sm_100f: SASS runs on family-specific: 10.0, 10.3; PTX JIT-compiles for family-specific: 10.0, 10.3" {
		t.Errorf("sm_100f title %q", h)
	}
	var cells []string
	for _, c := range m.Rows[0].Cells {
		cells = append(cells, c.Class+"="+c.Text)
	}
	if want := []string{"sass ptx top=SP+", "sass spec=S", "sass fam=S", "sass ptx fam=SP"}; !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
	if got := m.Rows[0].Cells[3].Title; !strings.Contains(got, "SASS (runs on family-specific: 12.0, 12.1), PTX (JIT for family-specific: 12.0, 12.1)") {
		t.Errorf("sm_120f cell title %q", got)
	}
	// Without suffixes, one header row of target names, as before.
	if g, h := archHeads([]string{"sm_80", "sm_90"}); g != nil || h[1].Label != "sm_90" || h[1].Class != "arch" {
		t.Errorf("plain targets: groups %v, heads %v", g, h)
	}
}
