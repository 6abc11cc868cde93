package nixpkgscheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// loading is a detection of a library with soname that loads names at run
// time (whole strings in .rodata).
func loading(soname string, names ...string) *features.Features {
	f := detected([]string{"lib/" + soname}, []string{soname}, nil)
	l := features.Library{Path: "lib/" + soname, Kind: "shared", Soname: soname}
	for _, n := range names {
		l.RuntimeLoads = append(l.RuntimeLoads, features.RuntimeLoad{Name: n, Confidence: "high",
			Evidence: []features.LoadEvidence{{Kind: "soname", Section: ".rodata", Offset: 64, String: n}}})
	}
	f.Libraries = []features.Library{l}
	return f
}

// cudaRelease is the archives of one cuda manifest: cuBLAS (loading
// what cublasLoads says), NVRTC and cuda_compat (its own libcuda.so.1).
func cudaRelease(version string, cublasLoads ...string) []Archive {
	arc := func(pkg string, f *features.Features) Archive {
		return Archive{Redist: "cuda", Manifest: version, DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: pkg, Platform: "linux-x86_64"}, Features: f}}
	}
	return []Archive{
		arc("libcublas", loading("libcublasLt.so.13", cublasLoads...)),
		arc("cuda_nvrtc", loading("libnvrtc.so.13")),
		arc("cuda_compat", loading("libcuda.so.1")),
	}
}

// TestUnreachableRuntimeLoad: cuBLAS loads NVRTC from 13.0 on (12.9 did
// not) and the driver in both: a package file without appendRunpaths
// gets one hint, for 13.0, naming the version condition; one whose
// appendRunpaths names NVRTC's directory, or which has it as an input,
// gets none; the driver's libcuda.so.1 never gives one (cuda_compat
// provides a libcuda.so.1 too: without the driver rule it would).
func TestUnreachableRuntimeLoad(t *testing.T) {
	in := Input{
		Manifests: []Manifest{
			{Redist: "cuda", Version: "12.9.1", Releases: releases("libcublas", "12.9.1.4", "cuda_nvrtc", "12.9.86", "cuda_compat", "12.9.1")},
			{Redist: "cuda", Version: "13.0.0", Releases: releases("libcublas", "13.0.0.19", "cuda_nvrtc", "13.0.48", "cuda_compat", "13.0.0")},
		},
		Archives:    append(cudaRelease("12.9.1", "libcuda.so.1"), cudaRelease("13.0.0", "libcuda.so.1", "libnvrtc.so.13")...),
		PackagesDir: "/pkgs",
	}
	p := NewPlan(in)
	if len(p.Cases) != 2 {
		t.Fatalf("cases %q, want 12.9.1 and 13.0.0", p.CaseNames)
	}
	cublas := func(edit func(*pkgeval.Result)) []pkgeval.Result {
		var out []pkgeval.Result
		for range p.Cases {
			r := evaluated("libcublas", "out")
			r.RedistName = "cuda"
			edit(&r)
			out = append(out, r)
		}
		return out
	}
	other := func(pname string) []pkgeval.Result {
		r := evaluated(pname, "out")
		r.RedistName = "cuda"
		return []pkgeval.Result{r, r}
	}
	hints := func(rs []pkgeval.Result) []Finding {
		results := map[string][]pkgeval.Result{"libcublas.nix": rs, "cuda_nvrtc.nix": other("cuda_nvrtc"), "cuda_compat.nix": other("cuda_compat")}
		var out []Finding
		for _, f := range p.Check([]string{"cuda_compat.nix", "cuda_nvrtc.nix", "libcublas.nix"}, results) {
			if f.Kind == KindUnreachableLoad {
				out = append(out, f)
			}
		}
		return out
	}
	want := []Finding{{Level: LevelHint, Kind: KindUnreachableLoad, Package: "libcublas", Platform: "linux-x86_64", Variant: "None", Version: "13.0.0",
		File: "libcublas.nix", RuntimeLoad: &RuntimeLoad{Provider: "cuda_nvrtc", Sonames: []string{"libnvrtc.so.13"}, Since: "13.0.0.19"},
		Message: `loads libnvrtc.so.13 at run time (libcublasLt.so.13: soname in .rodata), which cuda_nvrtc provides (from libcublas 13.0.0.19 on); ` +
			`nothing makes it reachable (no appendRunpaths, runtimeDependencies or input names cuda_nvrtc): add "${lib.getLib cuda_nvrtc}/lib" to appendRunpaths`}}
	got := hints(cublas(func(*pkgeval.Result) {}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no appendRunpaths (-want +got):\n%s", diff)
	}
	if len(got) == 1 && got[0].Text() != "HINT  libcublas linux-x86_64 None 13.0.0: "+want[0].Message+" [libcublas.nix]" {
		t.Errorf("text %q", got[0].Text())
	}
	for name, edit := range map[string]func(*pkgeval.Result){
		"appendRunpaths": func(r *pkgeval.Result) {
			r.AppendRunpaths = []string{"/nix/store/00000000000000000000000000000000-cuda_nvrtc/lib"}
		},
		"runtimeDependencies": func(r *pkgeval.Result) { r.RuntimeDependencies = []string{"cuda_nvrtc"} },
		"buildInputs":         func(r *pkgeval.Result) { r.BuildInputs = []string{"cuda_nvrtc"} },
	} {
		if got := hints(cublas(edit)); len(got) != 0 {
			t.Errorf("with %s: %+v, want no hint", name, got)
		}
	}
}
