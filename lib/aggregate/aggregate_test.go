package aggregate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func TestLegacyAndIndex(t *testing.T) {
	h := strings.Repeat("a", 64)
	m, err := manifest.Parse("m.json", []byte(`{
	  "libx": {"name": "X", "license": "L", "license_path": "libx/LICENSE.txt", "version": "1.2.3", "cuda_variant": ["11", "12"],
	    "linux-x86_64": {
	      "cuda11": {"relative_path": "libx/linux-x86_64/libx-linux-x86_64-1.2.3_cuda11-archive.tar.xz", "sha256": "`+h+`"},
	      "cuda12": {"relative_path": "libx/other/name.tar.gz", "sha256": "`+h+`"}}},
	  "src": {"name": "S", "license": "L", "version": "1", "source": {"relative_path": "src/s.tar.xz", "sha256": "`+h+`"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	archives := m.Archives()
	entries := []aggregate.Detected{
		{DetectedArchive: manifest.DetectedArchive{Archive: archives[0], Features: &features.Features{Outputs: outputsOf("lib", "dev", "include"), NarHash: "sha256-A"}}},
		{DetectedArchive: manifest.DetectedArchive{Archive: archives[1], Features: &features.Features{Outputs: outputsOf("lib", "static"), NarHash: "sha256-B", CudaVersionsInLib: []string{"12"}}}},
		{DetectedArchive: manifest.DetectedArchive{Archive: archives[2], Features: &features.Features{Outputs: outputsOf("include", "dev"), NarHash: "sha256-C"}}},
	}
	legacy, err := features.Encode(aggregate.Legacy(entries))
	if err != nil {
		t.Fatal(err)
	}
	wantLegacy := `{
  "libx": {
    "linux-x86_64": {
      "outputs": {
        "bin": false,
        "dev": true,
        "doc": false,
        "lib": true,
        "sample": false,
        "static": true
      }
    }
  }
}
`
	if diff := cmp.Diff(wantLegacy, string(legacy)); diff != "" {
		t.Errorf("legacy (-want +got):\n%s", diff)
	}
	releases := map[string]features.ReleaseInfo{}
	for pkg, r := range m.Releases {
		releases[pkg] = r.Info()
	}
	idx, err := aggregate.BuildIndex("r", "9.9", releases, entries)
	if err != nil {
		t.Fatal(err)
	}
	leaves := idx["r"]["9.9"]["libx"].Packages["linux-x86_64"]
	if got := leaves["cuda11"]; got.RelativePath != "" || !cmp.Equal(got.Feature.Outputs, []string{"out", "dev", "include", "lib"}) {
		t.Errorf("cuda11 leaf = %+v (conventional path must be left out)", got)
	}
	if got := leaves["cuda12"]; got.RelativePath != "libx/other/name.tar.gz" || !cmp.Equal(got.Feature.CudaVersionsInLib, []string{"12"}) {
		t.Errorf("cuda12 leaf = %+v", got)
	}
	if got := idx["r"]["9.9"]["src"].Packages["source"]["None"]; got.NarHash != "sha256-C" {
		t.Errorf("source leaf = %+v", got)
	}
	if ri := idx["r"]["9.9"]["libx"].ReleaseInfo; ri != (features.ReleaseInfo{License: "L", LicensePath: "libx/LICENSE.txt", Name: "X", Version: "1.2.3"}) {
		t.Errorf("releaseInfo = %+v", ri)
	}
	checkMerges(t, idx, releases, entries)
	delete(releases, "src")
	if _, err := aggregate.BuildIndex("r", "9.9", releases, entries); err == nil || !strings.Contains(err.Error(), "entry src/source: no release information for package src") {
		t.Errorf("an entry without its release: err = %v", err)
	}
}

// outputsOf is a detection's outputs: out and names true, the others
// false.
func outputsOf(names ...string) map[string]bool {
	o := map[string]bool{}
	for _, n := range features.OutputNames {
		o[n] = false
	}
	o["out"] = true
	for _, n := range names {
		o[n] = true
	}
	return o
}

// checkMerges: idx merges with itself, not with another index of the
// same release.
func checkMerges(t *testing.T, idx features.Index, releases map[string]features.ReleaseInfo, entries []aggregate.Detected) {
	t.Helper()
	if _, err := aggregate.MergeIndexes(idx, idx); err != nil {
		t.Errorf("merging identical indexes: %v", err)
	}
	other, _ := aggregate.BuildIndex("r", "9.9", releases, entries[:1])
	if _, err := aggregate.MergeIndexes(idx, other); err == nil || !strings.Contains(err.Error(), "r 9.9 appears twice") {
		t.Errorf("merging conflicting indexes: err = %v", err)
	}
}
