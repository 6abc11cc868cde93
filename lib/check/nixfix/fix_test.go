package nixfix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func requireNix(t *testing.T) { testenv.RequireNix(t, "nix-instantiate") }

// target is one archive: the platform and CUDA version its package
// file is evaluated for, and what it holds.
type target struct {
	platform, cudaVersion string
	tree                  features.Tree
}

// Archives in the shapes of NVIDIA's: a runtime with stubs (no static
// library on sbsa), a tool with /usr/ in a script, headers only.
var (
	rtX86  = features.Tree{Files: []string{"LICENSE", "include/rt.h", "lib/librt.so.1", "lib/librt_static.a", "lib/stubs/librt.so"}}
	rtSbsa = features.Tree{Files: []string{"LICENSE", "include/rt.h", "lib/librt.so.1", "lib/stubs/librt.so"}}
	tool   = features.Tree{Files: []string{"LICENSE", "bin/tool", "bin/tool.sh"}, UsrFiles: []string{"bin/tool.sh"}}
	hdrs   = features.Tree{Files: []string{"LICENSE", "include/h.h", "lib/libh.so"}}
)

// evaluate evaluates text as a package file for each target with the
// stand-in (so which branch applies is Nix's answer, as in
// check-nixpkgs) and returns the fixer's cases.
func evaluate(t *testing.T, text string, targets []target) []Case {
	t.Helper()
	dir := t.TempDir()
	files := []string{"p.nix"}
	if err := os.WriteFile(filepath.Join(dir, "p.nix"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if probe, ok := Probe(text); ok {
		files = append(files, "probe.nix")
		if err := os.WriteFile(filepath.Join(dir, "probe.nix"), []byte(probe), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var pc []pkgeval.Case
	for _, tg := range targets {
		pc = append(pc, pkgeval.Case{Platform: tg.platform, CudaVersion: tg.cudaVersion, RedistName: "cuda",
			Releases: map[string]string{"cuda_rt": tg.cudaVersion + ".1"}})
	}
	ev := &pkgeval.Evaluator{StandIn: filepath.Join(testenv.RepoRoot(), "nix", "buildredist-standin.nix"), Jobs: 2}
	res, err := ev.Evaluate(context.Background(), dir, files, pc)
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for i, tg := range targets {
		r := res["p.nix"][i]
		if !r.OK() {
			t.Fatalf("p.nix does not evaluate for %s: %s", tg.platform, r.Error)
		}
		cases = append(cases, Case{Name: tg.platform + " " + tg.cudaVersion, Platform: tg.platform, CudaVersion: tg.cudaVersion, Options: buildredist.Options{CudaMajor: strings.Split(tg.cudaVersion, ".")[0]},
			Outputs: r.Outputs, Hook: r.IncludeRemoveStubsFromRunpathHook, FHS: r.AllowFHSReferences,
			Archives: []Archive{{Name: tg.platform, Tree: tg.tree}}})
		if len(files) == 2 {
			cases[i].Probe = res["probe.nix"][i].Outputs
		}
	}
	return cases
}

// fixCase is one file of testdata/fix: a package file, the archives it
// is evaluated for, and what Fix makes of it.
type fixCase struct {
	name    string   // the file's first line
	targets []target // one "target: PLATFORM CUDA-VERSION TREE" line each
	in      string   // after "-- in --"
	want    string   // after "-- want --"; "" when the file is already right
	refusal string   // "refusal: ...": a part of the refusal's reason
}

// trees names the archives testdata/fix's target lines refer to.
var trees = map[string]features.Tree{"rtX86": rtX86, "rtSbsa": rtSbsa, "tool": tool, "hdrs": hdrs,
	"stubsTwoPlaces": {Files: []string{"LICENSE", "stubs/libx.so", "lib/stubs/liby.so"}}}

// readFixCase parses one file of testdata/fix.
func readFixCase(t *testing.T, path string) fixCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(string(data), "-- in --\n")
	if !ok {
		t.Fatalf("%s: no -- in -- section", path)
	}
	tc := fixCase{}
	tc.in, tc.want, _ = strings.Cut(body, "-- want --\n")
	for i, line := range strings.Split(strings.TrimSuffix(head, "\n"), "\n") {
		key, value, _ := strings.Cut(line, ": ")
		switch {
		case i == 0:
			tc.name = line
		case key == "target":
			f := strings.Fields(value)
			tree, known := trees[f[len(f)-1]]
			if len(f) != 3 || !known {
				t.Fatalf("%s: bad target line %q", path, line)
			}
			tc.targets = append(tc.targets, target{f[0], f[1], tree})
		case key == "refusal":
			tc.refusal = value
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
	}
	if len(tc.targets) == 0 {
		t.Fatalf("%s: no target", path)
	}
	return tc
}

// TestFix runs each case of testdata/fix: the fixed file is the one
// wanted, evaluates without errors, and fixing it again changes nothing.
func TestFix(t *testing.T) {
	requireNix(t)
	paths, err := filepath.Glob("testdata/fix/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in testdata/fix: %v", err)
	}
	var tests []fixCase
	for _, p := range paths {
		tests = append(tests, readFixCase(t, p))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Fix(tc.in, evaluate(t, tc.in, tc.targets))
			if tc.refusal != "" {
				checkRefused(t, tc, got, err)
				return
			}
			if err != nil {
				t.Fatalf("Fix: %v", err)
			}
			checkFixed(t, tc, got)
		})
	}
}

// checkRefused: Fix refused tc's file with its refusal and left it as it
// was.
func checkRefused(t *testing.T, tc fixCase, got string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), tc.refusal) {
		t.Fatalf("Fix: error %v, want a refusal with %q; text:\n%s", err, tc.refusal, got)
	}
	if got != tc.in {
		t.Errorf("a refused file changed:\n%s", got)
	}
}

// checkFixed: got is the file tc wants, what Nix evaluates from it
// builds everywhere, and fixing it again changes nothing.
func checkFixed(t *testing.T, tc fixCase, got string) {
	t.Helper()
	want := tc.want
	if want == "" {
		want = tc.in
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Fix (-want +got):\n%s", diff)
	}
	for _, c := range evaluate(t, got, tc.targets) {
		if errs := errorsOf(c, c.Outputs, c.Hook, c.FHS); len(errs) > 0 {
			t.Errorf("%s still fails after the fix: %s", c.Name, errs[0].Message)
		}
	}
	again, err := Fix(got, evaluate(t, got, tc.targets))
	if err != nil || again != got {
		t.Errorf("fixing again: %v\n%s", err, again)
	}
}

// Without a probe, which of two branches with the same list applies is
// unknown: the fix is refused rather than guessed.
func TestFixAmbiguousWithoutProbe(t *testing.T) {
	in := `{ buildRedist, lib, a, b }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals a [ "static" ] ++ lib.optionals b [ "static" ]; }
`
	c := Case{Name: "sbsa", Platform: "linux-sbsa", CudaVersion: "12.8", Options: buildredist.Options{CudaMajor: "12"},
		Outputs: []string{"out", "include", "lib", "stubs", "static"}, Archives: []Archive{{Name: "sbsa", Tree: rtSbsa}}}
	got, err := Fix(in, []Case{c})
	if err == nil || !strings.Contains(err.Error(), "cannot tell whether the branch optionals a applies for sbsa") || got != in {
		t.Errorf("Fix: %v\n%s", err, got)
	}
	// With the probe's answer (b applies), b's branch goes.
	c.Probe = []string{"nixfix-probe-0", "out", "include", "lib", "stubs", "nixfix-probe-2", "static"}
	got, err = Fix(in, []Case{c})
	want := strings.Replace(in, ` ++ lib.optionals b [ "static" ]`, "", 1)
	if err != nil || got != want {
		t.Errorf("Fix with the probe: %v\n%s", err, got)
	}
}
