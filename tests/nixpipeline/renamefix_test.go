package nixpipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenameFixGivesBothNames: after check-nixpkgs --fix on the lineage
// example (cuda_cccl renamed cccl in CUDA 13.3.0), the cuda-modules tree,
// composed as Nixpkgs composes a CUDA package set
// (testdata/cuda-package-set.nix), gives under both names the package
// of NVIDIA's name of the release: cuda_cccl for CUDA 13.2, silently,
// and cccl for 13.3, with a warning only where the old name is used.
// Before the fix, the 13.3 set has no cccl.
func TestRenameFixGivesBothNames(t *testing.T) {
	requireNix(t)
	bin := programBinary(t)
	scratch := t.TempDir()
	tree := filepath.Join(scratch, "cuda-modules")
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(), "examples", "lineage"), tree).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	manifests := filepath.Join(scratch, "cuda")
	if err := os.Mkdir(manifests, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"13.2.2", "13.3.0"} {
		name := "redistrib_" + v + ".json"
		data, err := os.ReadFile(filepath.Join(repoRoot(), "tests", "testdata", "nixpkgs-manifests", "cuda", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(manifests, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	before := packageSet(t, tree, "13.3")
	if before.pnames["cccl"] != nil {
		t.Fatalf("before the fix the 13.3 set has cccl: %v", before.pnames)
	}

	fix := exec.Command(bin, "check-nixpkgs", "--offline", "--eval-only", "--fix", filepath.Join(tree, "packages"), manifests)
	fix.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if out, err := fix.CombinedOutput(); err != nil {
		t.Fatalf("check-nixpkgs --fix: %v\n%s", err, out)
	}
	cccl, oldName := "cccl", "cuda_cccl"
	for _, tc := range []struct {
		cuda  string
		want  map[string]*string
		warns bool
	}{
		{"13.2", map[string]*string{"cccl": &oldName, "cuda_cccl": &oldName}, false},
		{"13.3", map[string]*string{"cccl": &cccl, "cuda_cccl": &cccl}, true},
	} {
		got := packageSet(t, tree, tc.cuda)
		if diff := cmp.Diff(tc.want, got.pnames); diff != "" {
			t.Errorf("CUDA %s after the fix (-want +got):\n%s", tc.cuda, diff)
		}
		warned := strings.Contains(got.stderr, "evaluation warning: cudaPackages.cuda_cccl is cudaPackages.cccl since CUDA 13.3")
		if warned != tc.warns {
			t.Errorf("CUDA %s: warned %v, want %v; stderr:\n%s", tc.cuda, warned, tc.warns, got.stderr)
		}
	}
}

// setAnswer is what testdata/cuda-package-set.nix says of cccl and
// cuda_cccl (nil: no such attribute), and what Nix printed on stderr.
type setAnswer struct {
	pnames map[string]*string
	stderr string
}

// packageSet evaluates testdata/cuda-package-set.nix on tree for CUDA
// version cuda.
func packageSet(t *testing.T, tree, cuda string) setAnswer {
	t.Helper()
	cmd := exec.Command("nix-instantiate", "--eval", "--strict", "--json",
		filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "cuda-package-set.nix"),
		"--arg", "dir", tree, "--argstr", "cuda", cuda, "--arg", "names", `[ "cccl" "cuda_cccl" ]`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("evaluating the package set of %s for CUDA %s: %v\n%s", tree, cuda, err, stderr.String())
	}
	var a setAnswer
	if err := json.Unmarshal(stdout.Bytes(), &a.pnames); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	a.stderr = stderr.String()
	return a
}
