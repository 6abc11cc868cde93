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

var (
	x86    = target{"linux-x86_64", "12.8", rtX86}
	sbsa   = target{"linux-sbsa", "12.8", rtSbsa}
	x86v13 = target{"linux-x86_64", "13.0", rtSbsa}
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

func TestFix(t *testing.T) {
	requireNix(t)
	tests := []struct {
		name    string
		targets []target
		in      string
		want    string // "" when the file is already right
		refusal string // a part of the refusal's reason
	}{
		{
			name:    "already right: untouched",
			targets: []target{x86, sbsa},
			in: `{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];
}
`,
		},
		{
			name:    "a list with a comment inside is not rewritten",
			targets: []target{x86, sbsa},
			in: `# A comment before the arguments stays.
{
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "bin" # no bin/ in these archives
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (lib.versionOlder finalAttrs.version "13") [ "doc" ];

  meta.description = "runtime";
})
`,
			refusal: "has a comment inside",
		},
		{
			name:    "outputs empty everywhere: removed from the list, and a branch left empty goes with its comment",
			targets: []target{{"linux-x86_64", "12.8", rtSbsa}, sbsa},
			in: `{
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "bin"
    "include"
    "lib"
    "static"
    "stubs"
  ]
  # only before 13
  ++ lib.optionals (lib.versionOlder finalAttrs.version "13") [ "doc" ];

  meta.description = "runtime";
})
`,
			want: `{
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "stubs"
  ];

  meta.description = "runtime";
})
`,
		},
		{
			name:    "the platform branch that applies loses its output",
			targets: []target{{"linux-x86_64", "12.8", rtSbsa}, sbsa},
			in: `{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "doc"
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];
})
`,
			want: `{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "stubs"
  ];
})
`,
		},
		{
			name:    "a version branch: only the branch of the version that lacks the output is edited",
			targets: []target{x86, x86v13},
			in: `{
  buildRedist,
  cudaAtLeast,
  cudaOlder,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
  ]
  ++ lib.optionals (cudaOlder "13.0") [
    "static"
    "stubs"
  ]
  ++ lib.optionals (cudaAtLeast "13.0") [
    "static"
    "stubs"
  ];
}
`,
			want: `{
  buildRedist,
  cudaAtLeast,
  cudaOlder,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
  ]
  ++ lib.optionals (cudaOlder "13.0") [
    "static"
    "stubs"
  ]
  ++ lib.optionals (cudaAtLeast "13.0") [ "stubs" ];
}
`,
		},
		{
			name:    "an output one platform lacks moves from the unconditional list to a platform branch; the arguments it needs are added",
			targets: []target{x86, sbsa},
			in: `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "static" "stubs" ]; }
`,
			want: `{ backendStdenv, buildRedist, lib }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ]; }
`,
		},
		{
			name:    "the same in nixfmt's layout, with finalAttrs",
			targets: []target{x86, sbsa},
			in: `{
  _cuda,
  buildRedist,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  meta.license = _cuda.lib.licenses.cuda;
})
`,
			want: `{
  _cuda,
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];

  meta.license = _cuda.lib.licenses.cuda;
})
`,
		},
		{
			name:    "an output a newer CUDA version lacks moves to a branch on cudaOlder",
			targets: []target{x86, x86v13},
			in: `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "static" "stubs" ]; }
`,
			want: `{ buildRedist, cudaOlder, lib }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals (cudaOlder "13.0") [ "static" ]; }
`,
		},
		{
			name:    "an output only a newer CUDA version fills moves to a branch on cudaAtLeast",
			targets: []target{{"linux-x86_64", "12.8", rtSbsa}, {"linux-x86_64", "13.0", rtX86}, {"linux-sbsa", "13.0", rtX86}},
			in: `{
  buildRedist,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [
    "out"
    "include"
    "lib"
    "static"
    "stubs"
  ];
}
`,
			want: `{
  buildRedist,
  cudaAtLeast,
  lib,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [
    "out"
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (cudaAtLeast "13.0") [ "static" ];
}
`,
		},
		{
			name:    "neither platform nor CUDA version tells the cases apart: refused, saying why",
			targets: []target{x86, sbsa, x86v13, {"linux-sbsa", "13.0", rtX86}},
			in: `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "static" "stubs" ]; }
`,
			refusal: "output static ends up empty for linux-sbsa 12.8; linux-x86_64 13.0 but not for linux-x86_64 12.8; linux-sbsa 13.0, and both take it from the list [ \"out\" \"include\" \"lib\" \"static\" \"stubs\" ], and neither the platform nor the CUDA version tells them apart",
		},
		{
			name:    "allowFHSReferences added after outputs, in the file's layout",
			targets: []target{{"linux-x86_64", "12.8", tool}},
			in: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [ "out" ];

  meta.mainProgram = "tool";
}
`,
			want: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [ "out" ];

  allowFHSReferences = true;

  meta.mainProgram = "tool";
}
`,
		},
		{
			name:    "allowFHSReferences = false becomes true, the comment above stays",
			targets: []target{{"linux-x86_64", "12.8", tool}},
			in: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [
    "out"
    "bin"
  ];
  # The script has /usr/bin/env in its shebang.
  allowFHSReferences = false;
}
`,
			want: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [
    "out"
    "bin"
  ];
  # The script has /usr/bin/env in its shebang.
  allowFHSReferences = true;
}
`,
		},
		{
			name:    "one line: the stubs hook turned on",
			targets: []target{x86},
			in: `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" ]; }
`,
			want: `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" ]; includeRemoveStubsFromRunpathHook = true; }
`,
		},
		{
			name:    "hook false although stubs are declared: flipped",
			targets: []target{x86, sbsa},
			in: `{ backendStdenv, buildRedist, lib }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];
  includeRemoveStubsFromRunpathHook = false;
}
`,
			want: `{ backendStdenv, buildRedist, lib }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = [ "out" "include" "lib" "stubs" ] ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];
  includeRemoveStubsFromRunpathHook = true;
}
`,
		},
		{
			name:    "stubs in lib while the hook goes to out: the stubs output is added (finalAttrs with let)",
			targets: []target{{"linux-x86_64", "12.8", rtSbsa}, sbsa},
			in: `{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (
  finalAttrs:
  let
    isJetson = backendStdenv.hostRedistSystem == "linux-aarch64";
  in
  {
    redistName = "cuda";
    pname = "cuda_rt";

    outputs = [
      "out"
      "include"
      "lib"
    ];

    includeRemoveStubsFromRunpathHook = !isJetson;
  }
)
`,
			want: `{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (
  finalAttrs:
  let
    isJetson = backendStdenv.hostRedistSystem == "linux-aarch64";
  in
  {
    redistName = "cuda";
    pname = "cuda_rt";

    outputs = [
      "out"
      "include"
      "lib"
      "stubs"
    ];

    includeRemoveStubsFromRunpathHook = !isJetson;
  }
)
`,
		},
		{
			name:    "outputs computed by if-then-else: refused",
			targets: []target{x86, sbsa},
			in: `{ backendStdenv, buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  outputs = if backendStdenv.hostRedistSystem == "linux-sbsa" then [ "out" "static" ] else [ "out" ];
}
`,
			refusal: "outputs is computed in a way the fixer does not follow (if backendStdenv",
		},
		{
			name:    "outputs inherited from a let: refused",
			targets: []target{{"linux-x86_64", "12.8", hdrs}},
			in: `{ buildRedist }:
let
  outputs = [
    "out"
    "doc"
  ];
in
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  inherit outputs;
}
`,
			refusal: "outputs is computed in a way the fixer does not follow (inherit)",
		},
		{
			name:    "no outputs binding: the hook's literal flipped rather than outputs added",
			targets: []target{{"linux-x86_64", "12.8", features.Tree{Files: []string{"LICENSE", "stubs/libx.so", "lib/stubs/liby.so"}}}},
			in: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  includeRemoveStubsFromRunpathHook = false;
}
`,
			want: `{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "cuda_rt";
  includeRemoveStubsFromRunpathHook = true;
}
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases := evaluate(t, tc.in, tc.targets)
			got, err := Fix(tc.in, cases)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("Fix: error %v, want a refusal with %q; text:\n%s", err, tc.refusal, got)
				}
				if got != tc.in {
					t.Errorf("a refused file changed:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Fix: %v", err)
			}
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Fix (-want +got):\n%s", diff)
			}
			// What Nix evaluates from the edited file builds everywhere.
			for _, c := range evaluate(t, got, tc.targets) {
				if errs := errorsOf(c, c.Outputs, c.Hook, c.FHS); len(errs) > 0 {
					t.Errorf("%s still fails after the fix: %s", c.Name, errs[0].Message)
				}
			}
			// Fixing a fixed file changes nothing.
			again, err := Fix(got, evaluate(t, got, tc.targets))
			if err != nil || again != got {
				t.Errorf("fixing again: %v\n%s", err, again)
			}
		})
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
