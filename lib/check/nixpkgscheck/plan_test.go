package nixpkgscheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// releases is a manifest's packages at versions (package, version, ...).
func releases(pkgVersions ...string) map[string]string {
	rs := map[string]string{}
	for i := 0; i+1 < len(pkgVersions); i += 2 {
		rs[pkgVersions[i]] = pkgVersions[i+1]
	}
	return rs
}

// planInput has archives of two manifests and of one no manifest is
// given for, on platforms that share or split cases.
func planInput() Input {
	cuda := releases("cuda_cudart", "12.6.77")
	cudnn := releases("cudnn", "9.8.0.87")
	return Input{
		Manifests: []Manifest{{Redist: "cuda", Version: "12.6.3", Releases: cuda}, {Redist: "cudnn", Version: "9.8.0", Releases: cudnn}},
		Archives: []Archive{
			{Redist: "cuda", Manifest: "12.6.3", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cuda_cudart", Platform: "linux-x86_64"}}},
			{Redist: "cuda", Manifest: "12.6.3", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cuda_cudart", Platform: "windows-x86_64"}}}, // never a case
			{Redist: "cuda", Manifest: "12.6.3", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cuda_cccl", Platform: "source"}}},           // x86_64's case
			{Redist: "cuda", Manifest: "12.6.3", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cuda_cudart", Platform: "linux-sbsa"}}},
			{Redist: "cudnn", Manifest: "9.8.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cudnn", Platform: "linux-x86_64", Variant: "cuda12"}}},
			{Redist: "cudnn", Manifest: "9.8.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cudnn", Platform: "linux-x86_64", Variant: "cuda11"}}},
			{Redist: "cudnn", Manifest: "9.8.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "cudnn", Platform: "linux-all", Variant: "cuda12"}}}, // x86_64's, cuda12's
			{Redist: "nvpl", Manifest: "1.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "nvpl_blas", Platform: "linux-sbsa"}}},                  // no manifest given
		},
	}
}

var (
	cudaReleases  = map[string]string{"cuda_cudart": "12.6.77"}
	cudnnReleases = map[string]string{"cudnn": "9.8.0.87"}
	planCases     = []pkgeval.Case{
		{Platform: "linux-x86_64", CudaVersion: "12.6", RedistName: "cuda", Releases: cudaReleases},
		{Platform: "linux-sbsa", CudaVersion: "12.6", RedistName: "cuda", Releases: cudaReleases},
		{Platform: "linux-x86_64", CudaVersion: "12.8", RedistName: "cudnn", Releases: cudnnReleases},
		{Platform: "linux-x86_64", CudaVersion: "11.0", RedistName: "cudnn", Releases: cudnnReleases},
		{Platform: "linux-sbsa", CudaVersion: "12.8", RedistName: "nvpl"},
	}
)

func TestNewPlanCases(t *testing.T) {
	p := NewPlan(planInput())
	wantCases := planCases
	if diff := cmp.Diff(wantCases, p.Cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	wantNames := []string{
		"cuda 12.6.3 on linux-x86_64 with CUDA 12.6",
		"cuda 12.6.3 on linux-sbsa with CUDA 12.6",
		"cudnn 9.8.0 on linux-x86_64 with CUDA 12.8",
		"cudnn 9.8.0 on linux-x86_64 with CUDA 11.0",
		"nvpl 1.0 on linux-sbsa with CUDA 12.8",
	}
	if diff := cmp.Diff(wantNames, p.CaseNames); diff != "" {
		t.Errorf("case names (-want +got):\n%s", diff)
	}
	wantTargets := []struct {
		pkg, platform string
		caseIndex     int
	}{
		{"cuda_cudart", "linux-x86_64", 0}, {"cuda_cccl", "source", 0}, {"cuda_cudart", "linux-sbsa", 1},
		{"cudnn", "linux-x86_64", 2}, {"cudnn", "linux-x86_64", 3}, {"cudnn", "linux-all", 2}, {"nvpl_blas", "linux-sbsa", 4},
	}
	if len(p.targets) != len(wantTargets) {
		t.Fatalf("%d targets, want %d: %+v", len(p.targets), len(wantTargets), p.targets)
	}
	for i, w := range wantTargets {
		if tg := p.targets[i]; tg.Package != w.pkg || tg.Platform != w.platform || tg.caseIndex != w.caseIndex {
			t.Errorf("target %d: %s %s case %d, want %s %s case %d", i, tg.Package, tg.Platform, tg.caseIndex, w.pkg, w.platform, w.caseIndex)
		}
	}
}

func TestNewPlanOptions(t *testing.T) {
	in := planInput()
	// --cuda-version applies to every case but those of a variant of another major.
	in.CudaVersion = "12.4"
	var versions []string
	for _, c := range NewPlan(in).Cases {
		versions = append(versions, c.CudaVersion)
	}
	if diff := cmp.Diff([]string{"12.4", "12.4", "12.4", "11.0", "12.4"}, versions); diff != "" {
		t.Errorf("with --cuda-version 12.4 (-want +got):\n%s", diff)
	}

	// Eval-only: the same cases, no archive to check.
	in.CudaVersion, in.EvalOnly = "", true
	eo := NewPlan(in)
	if diff := cmp.Diff(planCases, eo.Cases); diff != "" || len(eo.targets) != 0 {
		t.Errorf("eval-only: %d targets, cases (-want +got):\n%s", len(eo.targets), diff)
	}
}
