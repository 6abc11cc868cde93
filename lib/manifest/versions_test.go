package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// TestIncomparableVersions: a version whose numbers overflow cannot be
// compared with a filter; that is an error, not a silent skip.
func TestIncomparableVersions(t *testing.T) {
	const huge = "99999999999999999999.0.0"
	all, err := manifest.NewFilter("", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := all.Match(huge); !ok || err != nil {
		t.Errorf("no filter: Match(%s) = %v, %v; want it kept", huge, ok, err)
	}
	min, err := manifest.NewFilter("", "12.0.0", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := min.Match(huge); err == nil || !strings.Contains(err.Error(), huge) {
		t.Errorf("--min-version: Match(%s) err = %v, want it named", huge, err)
	}
	if ok, err := min.Match("12.8.0"); !ok || err != nil {
		t.Errorf("Match(12.8.0) = %v, %v", ok, err)
	}

	dir := t.TempDir()
	for _, v := range []string{"12.8.0", huge} {
		if err := os.WriteFile(filepath.Join(dir, "redistrib_"+v+".json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := manifest.FindManifests(dir, min); err == nil || !strings.Contains(err.Error(), "redistrib_"+huge+".json") {
		t.Errorf("FindManifests: err = %v, want the file named", err)
	}
	if found, err := manifest.FindManifests(dir, all); err != nil || len(found) != 2 {
		t.Errorf("FindManifests without a filter: %v, %v", found, err)
	}
}

// NVIDIA names some manifests with two numbers (nvpl's redistrib_25.5.json,
// kept so in Nixpkgs' _cuda/manifests/nvpl): found, and ordered with the others,
// as nix/bundled.nix finds them.
func TestFindManifestsTwoNumberVersions(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"redistrib_25.5.json", "redistrib_25.1.1.json", "redistrib_26.5.json", "redistrib_25.json", "redistrib_x.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := manifest.NewFilter("", "", "")
	if err != nil {
		t.Fatal(err)
	}
	found, err := manifest.FindManifests(dir, all)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range found {
		got = append(got, m.Version)
	}
	if want := "25.1.1 25.5 26.5"; strings.Join(got, " ") != want {
		t.Errorf("FindManifests = %v, want %s", got, want)
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"12.9.2", "13.0.0", -1}, {"13.10.0", "13.9.1", 1}, {"9.27.0", "9.27.0", 0}, {"0.7.0", "0.10.0", -1},
	} {
		if got := manifest.CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
