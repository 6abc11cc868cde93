package lineage_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// wheelTree is the root of an unpacked NVIDIA wheel under
// $CRFF_REAL_CUDA/lineage (scripts/fetch-real-cuda.sh): the directory
// under nvidia/ that holds the CUDA tree (bin, include, lib, nvvm), laid
// out as the redist archive lays out its own.
func wheelTree(t *testing.T, rel string) string {
	t.Helper()
	dir := filepath.Join(testenv.RealCUDA(t), "lineage", rel)
	if _, err := os.Stat(filepath.Join(testenv.RealCUDA(t), "lineage", ".complete")); err != nil {
		testenv.Unavailable(t, "no unpacked lineage wheels in $CRFF_REAL_CUDA/lineage (scripts/fetch-real-cuda.sh)")
	}
	return dir
}

// detectInto runs the detector on a wheel's tree and adds its facts to
// the release's package.
func detectInto(t *testing.T, r *lineage.Release, pkg, root string) {
	t.Helper()
	f, err := facts.Detect(root)
	if err != nil {
		t.Fatalf("detect %s: %v", root, err)
	}
	r.Packages[pkg].AddFeatures(f)
}

// files lists the regular files under root, relative to it.
func files(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCUDA13_0SplitFromWheels: CUDA 12.9 → 13.0 with the trees of
// NVIDIA's wheels of the same versions (cuda_nvcc 12.9.86 of
// nvidia-cuda-nvcc-cu12; cuda_nvcc, libnvvm and cuda_crt 13.0.48 of
// nvidia-cuda-nvcc, nvidia-nvvm and nvidia-cuda-crt): NVVM and the CRT
// headers split out of cuda_nvcc, and the files that moved are named.
func TestCUDA13_0SplitFromWheels(t *testing.T) {
	old12 := wheelTree(t, "cu12/nvidia/cuda_nvcc")
	nvcc13 := wheelTree(t, "cu13/nvidia_cuda_nvcc/nvidia/cu13")
	nvvm13 := wheelTree(t, "cu13/nvidia_nvvm/nvidia/cu13")
	crt13 := wheelTree(t, "cu13/nvidia_cuda_crt/nvidia/cu13")
	old, new := cudaRelease(t, "12.9.2"), cudaRelease(t, "13.0.0")
	if old.Packages["cuda_nvcc"].Version != "12.9.86" || new.Packages["libnvvm"].Version != "13.0.48" {
		t.Fatalf("the wheels are 12.9.86 and 13.0.48; the manifests say %s and %s", old.Packages["cuda_nvcc"].Version, new.Packages["libnvvm"].Version)
	}
	detectInto(t, old, "cuda_nvcc", old12)
	detectInto(t, new, "cuda_nvcc", nvcc13)
	detectInto(t, new, "libnvvm", nvvm13)
	detectInto(t, new, "cuda_crt", crt13)
	l := lineage.Compare(old, new, nil)
	t.Log(text(t, l))

	moves := map[string]lineage.Move{}
	for _, m := range l.Moves {
		if m.From != "cuda_nvcc" || m.Kind != "split" {
			t.Errorf("move %+v; want splits out of cuda_nvcc", m)
		}
		moves[m.To] = m
	}
	checkCRTMoved(t, moves["cuda_crt"], old12, nvcc13, crt13)
	checkNVVMMoved(t, moves["libnvvm"])
	out := text(t, l)
	for _, line := range []string{"- split: cuda_nvcc -> libnvvm, ", "- split: cuda_nvcc -> cuda_crt, ", "  - nvvm/lib64/libnvvm.so -> lib/libnvvm.so.4 (by soname)\n"} {
		if !strings.Contains(out, line) {
			t.Errorf("text lacks %q", line)
		}
	}
}

// checkCRTMoved: every header of the crt wheel (crt13) that cuda_nvcc
// 12.9 had at the same path (old12) and 13.0's cuda_nvcc (nvcc13) no
// longer has moved, by path.
func checkCRTMoved(t *testing.T, m lineage.Move, old12, nvcc13, crt13 string) {
	t.Helper()
	oldFiles, nvccFiles := files(t, old12), files(t, nvcc13)
	var want []string
	for f := range files(t, crt13) {
		if oldFiles[f] && !nvccFiles[f] {
			want = append(want, f)
		}
	}
	slices.Sort(want)
	var got []string
	for _, f := range m.Files {
		got = append(got, f.New)
	}
	if len(want) < 20 || !slices.Contains(want, "include/crt/host_config.h") || !slices.Equal(got, want) {
		t.Errorf("files moved to cuda_crt %v; want %v", got, want)
	}
}

// checkNVVMMoved: the library moves from nvvm/lib64 to lib and is found
// by its soname; nvvm.h and cicc change directories.
func checkNVVMMoved(t *testing.T, m lineage.Move) {
	t.Helper()
	nvvm := map[string]string{}
	for _, f := range m.Files {
		nvvm[f.Old] = f.New + " by " + f.By
	}
	for old, want := range map[string]string{
		"nvvm/lib64/libnvvm.so":          "lib/libnvvm.so.4 by soname",
		"nvvm/include/nvvm.h":            "include/nvvm.h by name",
		"nvvm/libdevice/libdevice.10.bc": "nvvm/libdevice/libdevice.10.bc by path",
	} {
		if nvvm[old] != want {
			t.Errorf("libnvvm: %s moved to %q; want %q (all: %v)", old, nvvm[old], want, nvvm)
		}
	}
	if !slices.Contains(m.Sonames, "libnvvm.so.4") {
		t.Errorf("libnvvm's sonames %v", m.Sonames)
	}
}
