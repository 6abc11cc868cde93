package pkgeval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

const goodFile = `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "good"; outputs = [ "out" "lib" ]; }`

// Runaways that fail fast or exhaust the memory bound: each is an error
// of its own and the good file still evaluates. The time bound is the
// default (minutes), so nothing here depends on how fast the machine is.
func TestEvaluateRunawaysMemory(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{
		"good.nix": goodFile,
		// 10^9 elements at once: 8 GB asked for in one allocation.
		"huge.nix": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "huge";
  outputs = [ "out" ] ++ builtins.genList (x: "o") 1000000000; }`,
		// Thirty million strings, one at a time: the memory bound stops it.
		"growing.nix": `{ buildRedist }: let l = builtins.genList (x: "s${toString x}") 30000000; in
buildRedist { redistName = "cuda"; pname = "growing"; outputs = [ "out" ] ++ builtins.deepSeq l [ ]; }`,
		"deep.nix":    `{ buildRedist }: let f = n: f (n + 1) + 1; in buildRedist { redistName = "cuda"; pname = "deep"; outputs = [ (f 0) ]; }`,
		"selfref.nix": `{ buildRedist }: let x = x; in buildRedist { redistName = "cuda"; pname = "selfref"; outputs = x; }`,
	})
	e := evaluator()
	e.MaxMemory = 1 << 30
	got, err := e.Evaluate(context.Background(), dir, files, twoCases)
	if err != nil {
		t.Fatal(err)
	}
	if r := got["good.nix"]; len(r) != 2 || !r[0].OK() || !r[1].OK() {
		t.Errorf("good.nix: %+v", r)
	}
	for file, want := range map[string]string{
		"huge.nix":    "error: out of memory (memory bound 1 GiB)",
		"growing.nix": "error: out of memory (memory bound 1 GiB)",
		"deep.nix":    "stack overflow",
		"selfref.nix": "infinite recursion encountered",
	} {
		for i, r := range got[file] {
			if !strings.Contains(r.Error, want) {
				t.Errorf("%s case %d: error %q, want it to say %q", file, i, r.Error, want)
			}
		}
	}
}

// A file that loops is stopped at the time bound, with everything its
// nix-instantiate started; the good files beside it still evaluate, and
// the bound is waited for twice (all files, then the loop alone), not
// once per halving.
func TestEvaluateRunawayTime(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	all := map[string]string{}
	for _, name := range []string{"good", "a", "b", "c", "d", "e", "f", "g"} {
		all[name+".nix"] = strings.Replace(goodFile, `"good"`, `"`+name+`"`, 1)
	}
	dir, files := writeFiles(t, withLoop(all))
	e := evaluator()
	// The time bound is the feature tested; the good files must still
	// finish under it on a loaded machine (they take well under a
	// second), so it is ten times that. The test waits for it twice.
	e.Timeout = 10 * time.Second
	got, err := e.Evaluate(context.Background(), dir, files, twoCases)
	if err != nil {
		t.Fatal(err)
	}
	for name := range all {
		if r := got[name]; len(r) != 2 || !r[0].OK() || !r[1].OK() {
			t.Errorf("%s: %+v", name, r)
		}
	}
	for i, r := range got["loop.nix"] {
		if r.Error != "error: evaluation stopped after 10s, its time bound" {
			t.Errorf("loop.nix case %d: error %q", i, r.Error)
		}
	}
	if n := e.timedOut.Load(); n != 2 {
		t.Errorf("%d runs stopped by the time bound, want 2", n)
	}
	if left := processesMentioning(t, dir); len(left) > 0 {
		t.Errorf("still running after Evaluate: %v", left)
	}
}

func withLoop(files map[string]string) map[string]string {
	out := map[string]string{"loop.nix": loopFile}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// 10^10 additions in little memory.
const loopFile = `{ buildRedist }: let n = builtins.foldl' (a: i: builtins.foldl' (b: j: b + 1) a (builtins.genList (x: x) 100000)) 0 (builtins.genList (x: x) 100000); in
buildRedist { redistName = "cuda"; pname = "loop"; outputs = [ "out" (toString n) ]; }`

// processesMentioning lists the processes whose command line contains s.
func processesMentioning(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range cmdlines {
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), s) {
			found = append(found, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return found
}

// The memory bound is set before nix-instantiate starts: a shell that
// cannot set it stops the evaluation rather than running it unbounded.
func TestEvaluateBoundsApplied(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, files := writeFiles(t, map[string]string{"good.nix": goodFile})
	e := evaluator()
	// Below what nix-instantiate needs to start: if the bound were not
	// applied, good.nix would evaluate.
	e.MaxMemory = 16 << 20
	got, err := e.Evaluate(context.Background(), dir, files, twoCases)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got["good.nix"] {
		if r.Error == "" {
			t.Errorf("good.nix case %d evaluated within 16 MiB: the memory bound is not applied", i)
		}
	}
}

// A Nixpkgs checkout's lib/ is evaluated under the same guard as the
// package files: lib.version (lib/.version, a link to the checkout's
// .version) reads, lib.maybeEnv is refused like builtins.getEnv, and
// nothing else of the checkout is readable.
func TestEvaluateNixpkgsLibGuarded(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	root, _ := writeFiles(t, map[string]string{
		".version":     "26.05",
		"private.txt":  "not for package files",
		"lib/more.nix": `{ maybeEnv = name: default: let v = builtins.getEnv name; in if v == "" then default else v; }`,
		"lib/default.nix": `let
  inherit (builtins) compareVersions concatStringsSep head splitVersion elemAt;
in
import ./more.nix // {
  version = builtins.readFile ./.version;
  private = builtins.readFile ../private.txt;
  versionAtLeast = a: b: compareVersions a b >= 0;
  versionOlder = a: b: compareVersions a b < 0;
  getLib = p: p.lib or p;
  optionals = c: l: if c then l else [ ];
  versions = {
    major = v: head (splitVersion v);
    majorMinor = v: concatStringsSep "." [ (head (splitVersion v)) (elemAt (splitVersion v) 1) ];
  };
}
`,
		"pkgs/version.nix": `{ buildRedist, lib }: buildRedist { redistName = "cuda"; pname = "v" + lib.version; }`,
		"pkgs/env.nix":     `{ buildRedist, lib }: buildRedist { redistName = "cuda"; pname = lib.maybeEnv "HOME" "home"; }`,
		"pkgs/private.nix": `{ buildRedist, lib }: buildRedist { redistName = "cuda"; pname = lib.private; }`,
	})
	if err := os.Symlink("../.version", filepath.Join(root, "lib", ".version")); err != nil {
		t.Fatal(err)
	}
	e := evaluator()
	e.NixpkgsLib = filepath.Join(root, "lib")
	dir := filepath.Join(root, "pkgs")
	got, err := e.Evaluate(context.Background(), dir, []string{"env.nix", "private.nix", "version.nix"}, twoCases[:1])
	if err != nil {
		t.Fatal(err)
	}
	if r := got["version.nix"][0]; r.Pname != "v26.05" {
		t.Errorf("version.nix: %+v", r)
	}
	if r := got["env.nix"][0]; !strings.Contains(r.Error, "package files may not read the environment") {
		t.Errorf("env.nix: %+v", r)
	}
	if r := got["private.nix"][0]; !strings.Contains(r.Error, "private.txt' is forbidden in restricted mode") {
		t.Errorf("private.nix: %+v", r)
	}
}

// A packages directory with "=" in its path (t.TempDir of a subtest
// named "a = b" has one) is readable: -I takes the first "=" as the end
// of a prefix.
func TestEvaluateDirWithEquals(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	dir, err := os.MkdirTemp("", "crff-eval-a=b,c-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "good.nix"), []byte(`{ buildRedist }: buildRedist { redistName = "cuda"; pname = "good"; outputs = [ "out" ]; }`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := evaluator().Evaluate(context.Background(), dir, []string{"good.nix"}, twoCases[:1])
	if err != nil {
		t.Fatal(err)
	}
	if r := got["good.nix"][0]; !r.OK() || r.Pname != "good" {
		t.Errorf("good.nix in %s: %+v", dir, r)
	}
}
