package nixpipeline

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// cliEntry is an entry of nix/cli.nix's result.
type cliEntry struct {
	Package, Platform, Variant, RelativePath, SHA256 string
	Fetch, Unpack, Detect                            *struct{ Drv, Out string }
}

// evalCLI evaluates nix/cli.nix over the manifests, each with its base URL.
func evalCLI(t *testing.T, paths, baseURLs []string, archivesOnly bool) [][]cliEntry {
	t.Helper()
	type m struct {
		RedistName string `json:"redistName"`
		Version    string `json:"version"`
		Manifest   string `json:"manifest"`
		BaseURL    string `json:"baseUrl"`
	}
	args := map[string]any{"detectorProgram": detectorBinary(t), "aggregateProgram": aggregateBinary(t), "system": nil, "index": nil, "archivesOnly": archivesOnly}
	var ms []m
	for i, p := range paths {
		ms = append(ms, m{"r", strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "redistrib_"), ".json"), p, baseURLs[i]})
	}
	args["manifests"] = ms
	argsFile := writeArgsFile(t, args)
	mode := []string{}
	if !archivesOnly {
		mode = append(mode, "--read-write-mode")
	}
	out := mustNix(t, append(append([]string{"nix-instantiate", "--eval", "--strict", "--json"}, mode...),
		filepath.Join(repoRoot(), "nix", "cli.nix"), "--argstr", "argsFile", argsFile)...)
	var res struct {
		Manifests []struct{ Entries []cliEntry }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	if len(res.Manifests) != len(paths) {
		t.Fatalf("%d manifests in, %d out", len(paths), len(res.Manifests))
	}
	var entries [][]cliEntry
	for _, rm := range res.Manifests {
		entries = append(entries, rm.Entries)
	}
	return entries
}

// archiveKey is what the check and the driver take from an entry.
func archiveKey(pkg, platform, variant, relativePath, sha256 string) string {
	return strings.Join([]string{pkg, platform, variant, relativePath, sha256}, " ")
}

// TestCLIEntriesAreTheManifestsArchives: the archives nix/cli.nix lists
// (what check-nixpkgs checks and the driver adds to the store: package,
// platform, variant, relative path, sha256, from the walker's record)
// are every archive of each bundled manifest, as the Go parser also reads
// them; with archivesOnly no derivation is given.
func TestCLIEntriesAreTheManifestsArchives(t *testing.T) {
	requireNix(t)
	paths, err := filepath.Glob(filepath.Join(repoRoot(), "manifests", "*", "redistrib_*.json"))
	if err != nil || len(paths) < 10 {
		t.Fatalf("bundled manifests: %v %v", paths, err)
	}
	baseURLs := make([]string, len(paths))
	for i := range paths {
		baseURLs[i] = "file:///srv/x"
	}
	got := evalCLI(t, paths, baseURLs, true)
	total := 0
	for i, p := range paths {
		m, err := manifest.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var want, have []string
		for _, a := range m.Archives() {
			want = append(want, archiveKey(a.Package, a.Platform, a.Variant.String(), a.RelativePath, a.SHA256))
		}
		for _, e := range got[i] {
			have = append(have, archiveKey(e.Package, e.Platform, e.Variant, e.RelativePath, e.SHA256))
			if e.Fetch != nil || e.Unpack != nil || e.Detect != nil {
				t.Errorf("%s: archivesOnly, yet derivations: %+v", p, e)
			}
		}
		sort.Strings(want)
		sort.Strings(have)
		if diff := cmp.Diff(want, have); diff != "" {
			t.Errorf("%s (base URL %q): archives (-Go parser +cli.nix):\n%s", p, baseURLs[i], diff)
		}
		total += len(have)
	}
	t.Logf("%d archives of %d manifests", total, len(paths))
}

// TestCLIEntriesNameEachStage: every entry of the sample has its fetch,
// unpack and detect derivations, distinct, each the input of the next
// (the roles the progress counts by come from here, not from names).
func TestCLIEntriesNameEachStage(t *testing.T) {
	requireNix(t)
	sample := filepath.Join(repoRoot(), "sample", "redistrib_2.0.0.json")
	entries := evalCLI(t, []string{sample}, []string{"file://" + filepath.Dir(sample)}, false)[0]
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	for _, e := range entries {
		if e.Fetch == nil || e.Unpack == nil || e.Detect == nil {
			t.Fatalf("%+v: a stage without its derivation", e)
		}
		// The unpack's inputs hold the fetch's, the detect's the unpack's.
		for _, edge := range [][2]string{{e.Unpack.Drv, e.Fetch.Drv}, {e.Detect.Drv, e.Unpack.Drv}} {
			refs := mustNix(t, "nix-store", "-q", "--references", edge[0])
			if !strings.Contains(refs, edge[1]) {
				t.Errorf("%s/%s: %s does not take %s", e.Package, e.Platform, edge[0], edge[1])
			}
		}
	}
}
