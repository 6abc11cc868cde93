package runtimedeps_test

import (
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
)

// TestSince: cuBLAS loads NVRTC from 13.0 on (12.9 did not), the driver
// in every release, and a load that came and went: Since, Until and
// Always say so, whatever the order the releases are given in.
func TestSince(t *testing.T) {
	nvrtc := features.IndexLoad{Name: "libnvrtc.so.13", Provider: features.ProviderPackage, Package: "cuda_nvrtc"}
	driver := features.IndexLoad{Name: "libcuda.so.1", Provider: features.ProviderDriver}
	gone := features.IndexLoad{Name: "libfoo.so.1", Provider: features.ProviderUnknown}
	rs := []runtimedeps.PackageRelease{
		{Package: "libcublas", Version: "13.1.0.3", Loads: []features.IndexLoad{nvrtc, driver}},
		{Package: "libcublas", Version: "12.9.1.4", Loads: []features.IndexLoad{driver, gone}},
		{Package: "libcublas", Version: "13.0.0.19", Loads: []features.IndexLoad{driver, nvrtc}},
		{Package: "libcublas", Version: "12.10.0.1", Loads: []features.IndexLoad{driver}},
	}
	got := map[string]runtimedeps.Appearance{}
	for _, a := range runtimedeps.Since(rs) {
		got[a.Load.Name] = a
	}
	if a := got["libnvrtc.so.13"]; a.Since != "13.0.0.19" || a.Until != "" || a.Always || len(a.Versions) != 2 {
		t.Errorf("NVRTC: %+v, want since 13.0.0.19, not always", a)
	}
	if a := got["libcuda.so.1"]; a.Since != "12.9.1.4" || !a.Always {
		t.Errorf("driver: %+v, want always", a)
	}
	if a := got["libfoo.so.1"]; a.Since != "12.9.1.4" || a.Until != "12.10.0.1" || a.Always {
		t.Errorf("gone: %+v, want since 12.9.1.4 until 12.10.0.1", a)
	}
}

func TestLabel(t *testing.T) {
	for l, want := range map[features.IndexLoad]string{
		{Name: "libnvrtc.so.13", Provider: "package", Package: "cuda_nvrtc"}: "libnvrtc.so.13 → cuda_nvrtc",
		{Name: "libcuda.so.1", Provider: "driver"}:                           "libcuda.so.1 → driver",
		{Name: "libnuma.so.%s", Provider: "free", Package: "numactl"}:        "libnuma.so.%s → numactl (free)",
		{Name: "libgdrapi.so", Provider: "unknown"}:                          "libgdrapi.so → unknown",
	} {
		if got := runtimedeps.Label(l); got != want {
			t.Errorf("Label(%+v) = %q, want %q", l, got, want)
		}
	}
}

// TestSinceIndex: the merged index of two releases says from which
// version of cuBLAS the NVRTC load appears (its leaves' runtimeLoads,
// every platform together).
func TestSinceIndex(t *testing.T) {
	nvrtc := features.IndexLoad{Name: "libnvrtc.so.13", Provider: features.ProviderPackage, Package: "cuda_nvrtc"}
	pkg := func(version string, loads ...features.IndexLoad) map[string]features.IndexPackage {
		return map[string]features.IndexPackage{"libcublas": {ReleaseInfo: features.ReleaseInfo{Version: version},
			Packages: map[string]map[string]features.IndexLeaf{"linux-x86_64": {"None": {}}, "linux-sbsa": {"None": {RuntimeLoads: loads}}}}}
	}
	index := features.Index{"cuda": {"12.9.1": pkg("12.9.1.4"), "13.0.0": pkg("13.0.0.19", nvrtc)}}
	got := runtimedeps.SinceIndex(index, "cuda")
	if len(got) != 1 || got[0].Package != "libcublas" || got[0].Load != nvrtc || got[0].Since != "13.0.0.19" || got[0].Always {
		t.Errorf("SinceIndex: %+v", got)
	}
}
