package licence_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest/licence"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// census reads the 217 pinned Nixpkgs manifests.
func census(t *testing.T) ([]licence.Use, int) {
	t.Helper()
	uses, n, err := licence.Census(testenv.NixpkgsManifests(t))
	if err != nil {
		t.Fatal(err)
	}
	if n != 217 {
		t.Fatalf("%d manifests read, want 217", n)
	}
	return uses, n
}

// TestLicencesDoc: docs/licences.md is what the table and the 217
// manifests generate (UPDATE_GOLDEN=1 rewrites it).
func TestLicencesDoc(t *testing.T) {
	uses, n := census(t)
	var b strings.Builder
	if err := licence.WriteMarkdown(&b, licence.Summarize(uses), n); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testenv.RepoRoot(), "docs", "licences.md")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s disagrees with the manifests and the table; UPDATE_GOLDEN=1 go test ./lib/manifest/licence -run TestLicencesDoc rewrites it", path)
	}
}

// TestCensusAgainstRawJSON counts the licence strings of the manifests
// by a walk of the raw JSON, independent of lib/manifest, and holds the
// census to it: every string, its package-releases and its packages.
func TestCensusAgainstRawJSON(t *testing.T) {
	uses, _ := census(t)
	releases, pkgs := map[string]int{}, map[string]map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(testenv.NixpkgsManifests(t), "*", "redistrib_*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		redist := filepath.Base(filepath.Dir(f))
		for key, v := range raw {
			var rel struct {
				License *string `json:"license"`
			}
			if json.Unmarshal(v, &rel) != nil || strings.HasPrefix(key, "release_") {
				continue
			}
			l := ""
			if rel.License != nil {
				l = *rel.License
			}
			releases[l]++
			if pkgs[l] == nil {
				pkgs[l] = map[string]bool{}
			}
			pkgs[l][redist+"/"+key] = true
		}
	}
	sums := licence.Summarize(uses)
	if len(sums) != len(releases) {
		t.Errorf("%d licence strings in the census, %d in the raw JSON", len(sums), len(releases))
	}
	for _, s := range sums {
		if s.Releases != releases[s.License] || len(s.Packages) != len(pkgs[s.License]) {
			t.Errorf("%q: census %d releases of %d packages, raw JSON %d of %d", s.License, s.Releases, len(s.Packages), releases[s.License], len(pkgs[s.License]))
		}
	}
	// The strings the issue names are there, cccl's new one among them.
	for _, l := range []string{"CUDA Toolkit", "NVIDIA Driver", "NVIDIA SLA", "CCCL EULA", "NVIDIA Proprietary"} {
		if releases[l] == 0 {
			t.Errorf("no release names %q", l)
		}
	}
}

// TestTableRowsAreUsed: every row of the table maps a string some
// manifest uses, and has a source (a row for a string no manifest names
// is a guess at the future).
func TestTableRowsAreUsed(t *testing.T) {
	uses, _ := census(t)
	used := map[string]bool{}
	for _, u := range uses {
		used[u.License] = true
	}
	for _, e := range licence.Table() {
		if !used[e.License] {
			t.Errorf("table row %q: no manifest names it", e.License)
		}
		if e.Source == "" || !strings.Contains(e.Source, "Nixpkgs") {
			t.Errorf("table row %q: source %q names no Nixpkgs file", e.License, e.Source)
		}
		if !strings.HasPrefix(e.Attr, "lib.licenses.") && !strings.HasPrefix(e.Attr, "_cuda.lib.licenses.") {
			t.Errorf("table row %q: attribute %q is neither Nixpkgs' nor the CUDA package set's", e.License, e.Attr)
		}
	}
}

// TestUnknownIsUnknown: strings the table does not hold are unknown, near
// misses included (no case folding, no prefix match).
func TestUnknownIsUnknown(t *testing.T) {
	for _, l := range []string{"CCCL EULA", "NVIDIA Driver", "NVIDIA SLA", "cuda toolkit", "CUDA Toolkit ", "", "NVIDIA"} {
		if e, ok := licence.Lookup(l); ok {
			t.Errorf("Lookup(%q) = %v; want unknown", l, e)
		}
	}
	if e, ok := licence.Lookup("cudnn"); !ok || e.Attr != "_cuda.lib.licenses.cudnn" {
		t.Errorf("Lookup(cudnn) = %v, %v", e, ok)
	}
	if licence.Default("cuda") != "lib.licenses.nvidiaCudaRedist" || licence.Default("cudnn") != "lib.licenses.nvidiaCuda" {
		t.Errorf("defaults %s, %s", licence.Default("cuda"), licence.Default("cudnn"))
	}
}

// TestMarkdownCells: a hostile licence string cannot break the page's
// tables.
func TestMarkdownCells(t *testing.T) {
	var b strings.Builder
	sums := licence.Summarize([]licence.Use{{Redist: "x", Version: "1", Package: "p", License: "a|b\nc"}})
	if err := licence.WriteMarkdown(&b, sums, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `| a\|b c | 1 | 1 |`) {
		t.Errorf("the string is not one cell:\n%s", b.String())
	}
}
