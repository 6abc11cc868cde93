package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestDiffManifestsLineage: diff of CUDA 13.2.2 and 13.3.0's manifests
// names the cccl rename with its licence change and the six drops, as
// text and as JSON.
func TestDiffManifestsLineage(t *testing.T) {
	dir := filepath.Join(testenv.NixpkgsManifests(t), "cuda")
	old, new := filepath.Join(dir, "redistrib_13.2.2.json"), filepath.Join(dir, "redistrib_13.3.0.json")
	t.Run("text", func(t *testing.T) {
		code, stdout, stderr := runCLI("diff", old, new)
		if code != exitOK {
			t.Fatalf("diff: exit %d: %s", code, stderr)
		}
		wants := []string{
			"cuda 13.2.2 -> 13.3.0 (manifests alone",
			`- renamed: cuda_cccl -> cccl ("CXX Core Compute Libraries", 13.2.86 -> 13.3.3.3.1)`,
			`- licence of cuda_cccl -> cccl: "CUDA Toolkit" (lib.licenses.nvidiaCudaRedist) -> "CCCL EULA" (unknown to the licence table)`,
			"- new: none\n",
		}
		for _, d := range []string{"mft", "mft_oem", "mft_autocomplete", "cuda_nsight", "collectx_bringup", "driver_assistant"} {
			wants = append(wants, "- dropped: "+d+" (")
		}
		checkContainsAll(t, "diff", stdout, wants)
	})
	t.Run("json", func(t *testing.T) {
		code, stdout, stderr := runCLI("diff", "--json", old, new)
		var l lineage.Lineage
		if code != exitOK || json.Unmarshal([]byte(stdout), &l) != nil || len(l.Dropped) != 6 || len(l.Renamed) != 1 || len(l.LicenceChanges) != 1 {
			t.Errorf("diff --json: exit %d, %s; %+v", code, stderr, l)
		}
	})
	t.Run("two redists", func(t *testing.T) {
		if code, _, stderr := runCLI("diff", old, filepath.Join(testenv.NixpkgsManifests(t), "cudnn", "redistrib_9.27.0.json")); code != exitFail || !strings.Contains(stderr, "is cuda but") {
			t.Errorf("diff of two redists' manifests: exit %d, %s", code, stderr)
		}
	})
}

// checkContainsAll fails t for each of wants that out (what's output)
// lacks.
func checkContainsAll(t *testing.T, what, out string, wants []string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}

// TestDiffAggregatesSplit: diff of two aggregates whose detail.json holds
// the trees of NVIDIA's wheels (CUDA 12.9.2's cuda_nvcc, 13.0.0's
// cuda_nvcc, libnvvm, cuda_crt) names the NVVM and CRT splits and the
// files that moved.
func TestDiffAggregatesSplit(t *testing.T) {
	real := filepath.Join(testenv.RealCUDA(t), "lineage")
	if _, err := os.Stat(filepath.Join(real, ".complete")); err != nil {
		testenv.Unavailable(t, "no unpacked lineage wheels in $CRFF_REAL_CUDA/lineage (scripts/fetch-real-cuda.sh)")
	}
	old := writeAggregate(t, "12.9.2", map[string]string{"cuda_nvcc": filepath.Join(real, "cu12/nvidia/cuda_nvcc")})
	new := writeAggregate(t, "13.0.0", map[string]string{
		"cuda_nvcc": filepath.Join(real, "cu13/nvidia_cuda_nvcc/nvidia/cu13"),
		"libnvvm":   filepath.Join(real, "cu13/nvidia_nvvm/nvidia/cu13"),
		"cuda_crt":  filepath.Join(real, "cu13/nvidia_cuda_crt/nvidia/cu13"),
	})
	code, stdout, stderr := runCLI("diff", old, new)
	if code != exitOK {
		t.Fatalf("diff: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"- split: cuda_nvcc -> libnvvm, 3 files, sonames libnvvm.so.4; evidence: trees: 3 files; sonames: 1\n",
		"  - nvvm/lib64/libnvvm.so -> lib/libnvvm.so.4 (by soname)\n",
		"- split: cuda_nvcc -> cuda_crt, ",
		"  - include/crt/host_config.h\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, stdout)
		}
	}
}

// writeAggregate writes an aggregate directory of a CUDA release: the
// index of every package of the pinned manifest, and detail.json with a
// linux-x86_64 detection of each tree given.
func writeAggregate(t *testing.T, version string, trees map[string]string) string {
	t.Helper()
	m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cuda", "redistrib_"+version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]features.IndexPackage{}
	for key, r := range m.Releases {
		pkgs[key] = features.IndexPackage{ReleaseInfo: r.Info(), Packages: map[string]map[string]features.IndexLeaf{}}
	}
	detail := features.Detail{}
	for key, root := range trees {
		f, err := facts.Detect(root)
		if err != nil {
			t.Fatal(err)
		}
		detail[key] = map[string]map[string]features.DetailEntry{"linux-x86_64": {"None": {RelativePath: key + ".tar.xz", Features: f}}}
	}
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "index.json"), features.Index{"cuda": {version: pkgs}})
	writeJSON(t, filepath.Join(dir, "detail.json"), detail)
	return dir
}
