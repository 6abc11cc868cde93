//go:build capture

// The capture of Nix's error texts is a tool, not a test: it is built
// only with -tags capture (lib/nixdriver/nixlog/testdata/capture.sh).

package pkgeval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// brokenFiles are package files that fail in the ways a maintainer's do;
// TestCaptureNixErrors writes what Nix says of each to testdata/nixerrors.
var brokenFiles = map[string]string{
	"missing": `{ buildRedist, backendStdenv }: buildRedist { redistName = "cuda"; pname = "missing";
  outputs = [ backendStdenv.hostCudaSystem ]; }
`,
	"syntax": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "syntax"
  outputs = [ "out" ]; }
`,
	"assertion": `{ buildRedist, lib }:
assert lib.versionAtLeast "1.0" "2.0";
buildRedist { redistName = "cuda"; pname = "assertion"; }
`,
	"throw": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "throw";
  outputs = throw "this package needs CUDA 13"; }
`,
	"typeerr": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "typeerr";
  outputs = [ "out" ] ++ "lib"; }
`,
	"recursion": `{ buildRedist }: let x = x + 1; in buildRedist { redistName = "cuda"; pname = "recursion";
  outputs = [ x ]; }
`,
}

// TestCaptureNixErrors writes the stderr of the first failed
// nix-instantiate of each of brokenFiles to $CRFF_CAPTURE_NIXERRORS/NAME.txt,
// its package directory written as /pkgs and the repository as /repo (the fixtures the tests of
// NixMessage read; lib/nixdriver/nixlog/testdata/capture.sh runs it with
// each Nix version, built with -tags capture).
func TestCaptureNixErrors(t *testing.T) {
	out := os.Getenv("CRFF_CAPTURE_NIXERRORS")
	if out == "" {
		t.Fatal("CRFF_CAPTURE_NIXERRORS not set: nothing to capture")
	}
	testenv.RequireNix(t, "nix-instantiate")
	for name, body := range brokenFiles {
		dir, files := writeFiles(t, map[string]string{name + ".nix": body})
		var first string
		e := evaluator()
		e.Jobs = 1
		e.onNixError = func(stderr string) {
			if first == "" {
				first = stderr
			}
		}
		if _, err := e.Evaluate(context.Background(), dir, files, twoCases[:1]); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			t.Fatalf("%s evaluates", name)
		}
		text := replaceDir(replaceDir(first, dir, "/pkgs"), testenv.RepoRoot(), "/repo")
		if err := os.WriteFile(filepath.Join(out, name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replaceDir writes dir (and its real path) as to in text.
func replaceDir(text, dir, to string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		text = strings.ReplaceAll(text, real, to)
	}
	return strings.ReplaceAll(text, dir, to)
}
