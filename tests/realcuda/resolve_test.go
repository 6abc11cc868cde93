package realcuda

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// cuda13Packages groups NVIDIA's CUDA 13 wheel libraries as the
// packages of one release (Nixpkgs' names), by directory under the
// real-cuda cache and file names.
var cuda13Packages = []struct {
	pkg, dir string
	files    []string
}{
	{"libcublas", "cuda-13/root/nvidia/cu13/lib", []string{"libcublas.so.13", "libcublasLt.so.13", "libnvblas.so.13"}},
	{"cuda_nvrtc", "cuda-13/root/nvidia/cu13/lib", []string{"libnvrtc.so.13", "libnvrtc-builtins.so.13.5"}},
	{"libnvjitlink", "cuda-13/root/nvidia/cu13/lib", []string{"libnvJitLink.so.13"}},
	{"libcufft", "cuda-13/root/nvidia/cu13/lib", []string{"libcufft.so.12", "libcufftw.so.12"}},
	{"cuda_cudart", "cuda-13/root/nvidia/cu13/lib", []string{"libcudart.so.13"}},
	{"libcurand", "cuda-13/root/nvidia/cu13/lib", []string{"libcurand.so.10"}},
	{"cuda_nvcc", "cuda-13/root/nvidia/cu13/lib", []string{"libnvvm.so.4"}},
	{"libcufile", "dlopen/cu13/root/nvidia/cu13/lib", []string{"libcufile.so.0", "libcufile_rdma.so.1"}},
	{"cuda_cupti", "dlopen/cu13/root/nvidia/cu13/lib", []string{"libcupti.so.13", "libnvperf_host.so", "libnvperf_target.so", "libpcsamplingutil.so", "libcheckpoint.so"}},
	{"libcusparse", "dlopen/cu13/root/nvidia/cu13/lib", []string{"libcusparse.so.12"}},
	{"libcusparse_lt", "dlopen/cu13/root/nvidia/cu13/lib", []string{"libcusparseLt.so.0"}},
	{"cudnn", "dlopen/cu13/root/nvidia/cudnn/lib", nil},
	{"nccl", "dlopen/cu13/root/nvidia/nccl/lib", nil},
	{"libnvshmem", "dlopen/cu13/root/nvidia/nvshmem/lib", nil},
}

// TestResolveRealCUDA13: the real CUDA 13 libraries, detected as the
// packages of one release and resolved by the aggregate's rules. The
// loads issue 39 names go where they should: cuBLASLt's libnvrtc.so.13
// to NVRTC's package, its libcuda.so.1 to the driver, NVRTC's builtins
// to NVRTC itself, cuDNN's cuBLASLt to cuBLAS, NCCL's NVML to the driver
// and its verbs library to rdma-core, cuFile's libnuma to numactl and
// liburcu-bp to liburcu; a graphics table's libGL is a free library
// without an attribute (reported, never hinted). The whole resolution is
// logged, per kind.
func TestResolveRealCUDA13(t *testing.T) {
	entries := detectCUDA13Packages(t, testenv.RealCUDA(t))
	aggregate.ResolveLoads(entries)
	type key struct{ lib, name string }
	got := map[key]features.LoadProvider{}
	for _, e := range entries {
		for _, l := range e.Loads {
			got[key{filepath.Base(l.Library), l.Name}] = l.Provider
		}
	}
	for _, tc := range []struct{ lib, name, kind, pkg string }{
		{"libcublasLt.so.13", "libnvrtc.so.13", features.ProviderPackage, "cuda_nvrtc"},
		{"libcublasLt.so.13", "libcuda.so.1", features.ProviderDriver, ""},
		{"libnvrtc.so.13", "libnvrtc-builtins.so.13.5", features.ProviderSamePackage, "cuda_nvrtc"},
		{"libcudnn_adv.so.9", "libcublasLt.so.13", features.ProviderPackage, "libcublas"},
		{"libnccl.so.2", "libnvidia-ml.so.1", features.ProviderDriver, ""},
		{"libnccl.so.2", "libibverbs.so.1", features.ProviderFree, "rdma-core"},
		{"libcufile.so.0", "liburcu-bp.so", features.ProviderFree, "liburcu"},
		// A graphics table's name: a free library, no attribute, no HINT.
		{"libcheckpoint.so", "libGL.so.1", features.ProviderFree, ""},
	} {
		p, ok := got[key{tc.lib, tc.name}]
		if !ok || p.Kind != tc.kind || p.Package != tc.pkg {
			t.Errorf("%s loads %s: resolved %v %+v, want %s %q", tc.lib, tc.name, ok, p, tc.kind, tc.pkg)
		}
	}
	logByKind(t, entries)
}

// detectCUDA13Packages links each package's libraries into a tree of its
// own (lib/) and detects it.
func detectCUDA13Packages(t *testing.T, dir string) []aggregate.Detected {
	t.Helper()
	work := t.TempDir()
	var entries []aggregate.Detected
	for _, p := range cuda13Packages {
		src := filepath.Join(dir, p.dir)
		files := p.files
		if files == nil {
			des, err := os.ReadDir(src)
			if err != nil {
				t.Fatalf("%v (run scripts/fetch-real-cuda.sh %s)", err, dir)
			}
			for _, de := range des {
				files = append(files, de.Name())
			}
		}
		tree := filepath.Join(work, p.pkg)
		if err := os.MkdirAll(filepath.Join(tree, "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.Link(filepath.Join(src, f), filepath.Join(tree, "lib", f)); err != nil {
				t.Fatalf("%v (run scripts/fetch-real-cuda.sh %s)", err, dir)
			}
		}
		f, err := facts.Detect(tree)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, aggregate.Detected{DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: p.pkg, Platform: "linux-x86_64"}, Features: f}})
	}
	return entries
}

// logByKind logs every resolved load, grouped by the kind of provider.
func logByKind(t *testing.T, entries []aggregate.Detected) {
	byKind := map[string][]string{}
	for _, e := range entries {
		for _, l := range e.Loads {
			what := fmt.Sprintf("%s: %s", filepath.Base(l.Library), l.Name)
			if l.Provider.Package != "" {
				what += " → " + l.Provider.Package
			}
			byKind[l.Provider.Kind] = append(byKind[l.Provider.Kind], what)
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		sort.Strings(byKind[k])
		t.Logf("%s (%d):\n  %s", k, len(byKind[k]), strings.Join(byKind[k], "\n  "))
	}
}
