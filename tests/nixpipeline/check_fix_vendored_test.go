package nixpipeline

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// vendoredHostDirs are the folders of Nsight's host tools, one a platform.
var vendoredHostDirs = map[string]string{"linux-x86_64": "host-linux-x64", "linux-sbsa": "host-linux-armv8"}

// The fake release with a copy of Qt 6 Core in cuda_cupti's archives, in
// each platform's host folder (as Nsight ships it): check-nixpkgs hints
// at it; --fix --remove-vendored writes a postPatch that parses and
// whose script, as Nix evaluates it, runs clean under bash -eu on each
// platform's tree (where the other platform's path is absent) and removes
// the copy; the check after it has no vendored hint, and a second --fix
// changes nothing.
//
// Above gocyclo's 15 on purpose: one Nix run (seconds to minutes) checked point by point, each if one check of it.
//
//gocyclo:ignore
func TestCheckFixRemoveVendored(t *testing.T) {
	requireNix(t)
	dir := t.TempDir()
	manifests, archives := filepath.Join(dir, "manifests"), filepath.Join(dir, "archives")
	release := cudaArchives()
	for i, a := range release {
		if a.pkg == "cuda_cupti" {
			top := strings.TrimSuffix(a.entries[0].Name, "/") + "/"
			release[i].entries = append(a.entries, testarchive.B(top+vendoredHostDirs[a.platform]+"/libQt6Core.so.6", soLib(a.platform, "libQt6Core.so.6", "libc.so.6")))
		}
	}
	writeRelease(t, filepath.Join(manifests, "cuda"), archives, "12.8.0", release)
	pkgs := packagesDir(t, withFiles(realShapes, map[string]string{"cudnn.nix": ""}))
	cuda := filepath.Join(manifests, "cuda")
	vendoredHints := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if strings.HasPrefix(l, "HINT") && strings.Contains(l, "vendored Qt") {
				out = append(out, l)
			}
		}
		return out
	}

	_, lines, stderr := runCheck(t, archives, pkgs, cuda)
	if got := vendoredHints(lines); len(got) != 2 {
		t.Fatalf("want a vendored hint per platform, got %q\nall lines:\n%s\n%s", got, strings.Join(lines, "\n"), stderr)
	}

	code, lines, stderr := runCheck(t, archives, "--fix", "--remove-vendored", "--hints=false", pkgs, cuda)
	if code != 0 {
		t.Fatalf("--fix --remove-vendored: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	fixed := readDir(t, pkgs)
	cupti := fixed["cuda_cupti.nix"]
	if out, err := exec.Command("nix-instantiate", "--parse", filepath.Join(pkgs, "cuda_cupti.nix")).CombinedOutput(); err != nil {
		t.Fatalf("cuda_cupti.nix does not parse: %v %s\n%s", err, out, cupti)
	}
	script := postPatchScript(t, filepath.Join(pkgs, "cuda_cupti.nix"))
	for platform, host := range vendoredHostDirs {
		src := t.TempDir()
		lib := filepath.Join(src, host, "libQt6Core.so.6")
		if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lib, []byte("copy"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: the postPatch fails: %v\n%s\nscript:\n%s", platform, err, out, script)
		}
		if _, err := os.Lstat(lib); err == nil {
			t.Errorf("%s: the postPatch left %s", platform, lib)
		}
	}

	if _, lines, stderr := runCheck(t, archives, pkgs, cuda); len(vendoredHints(lines)) != 0 {
		t.Errorf("vendored hints after --fix --remove-vendored:\n%s\n%s", strings.Join(vendoredHints(lines), "\n"), stderr)
	}
	code, lines, stderr = runCheck(t, archives, "--fix", "--remove-vendored", "--hints=false", pkgs, cuda)
	if code != 0 || len(lines) != 0 {
		t.Errorf("second --fix --remove-vendored: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	if diff := cmp.Diff(fixed, readDir(t, pkgs)); diff != "" {
		t.Errorf("the second --fix changed files:\n%s", diff)
	}
}

// postPatchScript is the file's postPatch as Nix evaluates it: the file
// called with stand-ins for its arguments (lib, buildRedist,
// backendStdenv: those of cuda_cupti.nix).
func postPatchScript(t *testing.T, file string) string {
	t.Helper()
	expr := `let r = import ` + file + ` { buildRedist = g: let s = g s; in s; lib = { optionals = c: l: if c then l else [ ]; };
  backendStdenv = { hostNixSystem = "x86_64-linux"; }; }; in r.postPatch`
	out, err := exec.Command("nix-instantiate", "--eval", "--strict", "--json", "-E", expr).Output()
	if err != nil {
		t.Fatalf("the postPatch of %s does not evaluate: %v", file, err)
	}
	var script string
	if err := json.Unmarshal(out, &script); err != nil {
		t.Fatalf("postPatch: %v: %s", err, out)
	}
	return script
}
