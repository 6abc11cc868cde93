package report

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// loadsAggregate is a cuda release whose libcublas (of version pkgVersion)
// loads what loads says, each resolved to cuda_nvrtc or the driver.
func loadsAggregate(version, pkgVersion string, loads ...string) *Aggregate {
	var resolved []features.ResolvedLoad
	for _, name := range loads {
		p := features.LoadProvider{Kind: features.ProviderDriver, Reason: "r"}
		if strings.HasPrefix(name, "libnvrtc") {
			p = features.LoadProvider{Kind: features.ProviderPackage, Package: "cuda_nvrtc", Reason: "r"}
		}
		resolved = append(resolved, features.ResolvedLoad{Library: "lib/libcublasLt.so.13", Name: name, Confidence: "high", Provider: p})
	}
	f := &features.Features{Outputs: map[string]bool{"out": true}, NarHash: "sha256-" + version}
	return &Aggregate{Redist: "cuda", Version: version,
		Index:  features.Index{"cuda": {version: {"libcublas": {ReleaseInfo: features.ReleaseInfo{Version: pkgVersion}}}}},
		Detail: features.Detail{"libcublas": {"linux-x86_64": {"None": {Features: f, RuntimeLoads: resolved}}}}}
}

// TestReportRuntimeLoads: a load that appears in the newer release is
// in the changes (JSON, text and HTML) and in runtimeLoadsSince with the
// package version it appears from; one in every release is "always"; a
// load that goes away is removed.
func TestReportRuntimeLoads(t *testing.T) {
	r := mustBuild(t, loadsAggregate("12.9.1", "12.9.1.4", "libcuda.so.1"), loadsAggregate("13.0.0", "13.0.0.19", "libcuda.so.1", "libnvrtc.so.13"))
	if len(r.Changes.Archives) != 1 || strings.Join(r.Changes.Archives[0].LoadsAdded, ",") != "libnvrtc.so.13 → cuda_nvrtc" || len(r.Changes.Archives[0].LoadsRemoved) != 0 {
		t.Fatalf("changes %+v, want libnvrtc.so.13 added", r.Changes.Archives)
	}
	var b strings.Builder
	if err := r.Changes.WriteText(&b, "cuda"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "linux-x86_64: runtime loads +libnvrtc.so.13 → cuda_nvrtc") {
		t.Errorf("text changes lack the load:\n%s", b.String())
	}
	checkSince(t, r)
	checkLoadsHTML(t, r)
	r = mustBuild(t, loadsAggregate("13.0.0", "13.0.0.19", "libnvrtc.so.13"), loadsAggregate("13.1.0", "13.1.0.3"))
	if len(r.Changes.Archives) != 1 || strings.Join(r.Changes.Archives[0].LoadsRemoved, ",") != "libnvrtc.so.13 → cuda_nvrtc" {
		t.Errorf("changes %+v, want libnvrtc.so.13 removed", r.Changes.Archives)
	}
}

func mustBuild(t *testing.T, aggs ...*Aggregate) *Report {
	t.Helper()
	r, err := Build(aggs, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkSince: NVRTC from cuBLAS 13.0.0.19 on, the driver always.
func checkSince(t *testing.T, r *Report) {
	t.Helper()
	since := map[string]string{}
	for _, a := range r.RuntimeLoadsSince {
		since[a.Load.Name] = a.Since
		if a.Always != (a.Load.Name == "libcuda.so.1") {
			t.Errorf("%s: always %v", a.Load.Name, a.Always)
		}
	}
	if since["libnvrtc.so.13"] != "13.0.0.19" || since["libcuda.so.1"] != "12.9.1.4" {
		t.Errorf("runtimeLoadsSince %+v", r.RuntimeLoadsSince)
	}
}

// checkLoadsHTML: the release's loads part and the change's note.
func checkLoadsHTML(t *testing.T, r *Report) {
	t.Helper()
	var html strings.Builder
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table class="loads" id="loads-13.0.0">`, `<td>libcublas</td><td>linux-x86_64</td><td>None</td><td><code>libcuda.so.1 → driver</code><br><code>libnvrtc.so.13 → cuda_nvrtc</code></td>`,
		`<span class="added">loads +libnvrtc.so.13 → cuda_nvrtc</span>`} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}
