package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// realFixtures are the bundled manifests the report is also tested on.
// Real detect results of their archives need the network, so their
// aggregates are fixtures: the archives (package, platform, variant,
// relative path, sha256) come from the bundled manifest, and outputs and
// narHash from upstream's index (tests/testdata/index/package-info.json), which
// were real detections. There are no library records: no architectures
// and no sonames (docs/report.md, "The real fixtures").
var realFixtures = []struct{ redist, version string }{
	{"cuda", "11.8.0"},
	{"cuda", "12.2.2"},
}

func realFixtureDir(redist, version string) string {
	return filepath.Join("testdata", "real", redist, version)
}

// buildRealFixture derives index.json and detail.json of one manifest.
func buildRealFixture(t *testing.T, upstream features.Index, redist, version string) map[string][]byte {
	t.Helper()
	m, err := manifest.ReadFile(filepath.Join(testenv.RepoRoot(), "manifests", redist, "redistrib_"+version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	leaves := upstream[redist][version]
	if leaves == nil {
		t.Fatalf("upstream index has no %s %s", redist, version)
	}
	var entries []aggregate.Detected
	for _, a := range m.Archives() {
		leaf, ok := leaves[a.Package].Packages[a.Platform][a.Variant.String()]
		if !ok {
			continue // not in upstream's index: left out rather than guessed
		}
		outs := map[string]bool{}
		for _, name := range features.OutputNames {
			outs[name] = false
		}
		for _, name := range leaf.Feature.Outputs {
			outs[name] = true
		}
		cv := leaf.Feature.CudaVersionsInLib
		if cv == nil {
			cv = []string{}
		}
		entries = append(entries, aggregate.Detected{DetectedArchive: manifest.DetectedArchive{Archive: a, Features: &features.Features{
			Outputs: outs, NarHash: leaf.NarHash, CudaVersionsInLib: cv, LibLayout: "none",
			Headers: []string{}, PythonModules: []string{}, Libraries: []features.Library{},
		}}})
	}
	if len(entries) < 10 {
		t.Fatalf("%s %s: only %d archives found in upstream's index", redist, version, len(entries))
	}
	aggregate.SortDetected(entries)
	releases := map[string]features.ReleaseInfo{}
	for pkg, r := range m.Releases {
		releases[pkg] = r.Info()
	}
	index, err := aggregate.BuildIndex(redist, version, releases, entries)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for name, v := range map[string]any{"index.json": index, "detail.json": aggregate.BuildDetail(entries)} {
		data, err := features.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	return out
}

// TestRealFixturesCurrent rebuilds the fixtures from the manifests and
// the pinned index (tests/testdata) and compares them with the committed ones;
// UPDATE_GOLDEN=1 rewrites them.
func TestRealFixturesCurrent(t *testing.T) {
	data := testenv.TestData(t)
	raw, err := os.ReadFile(filepath.Join(data, "index", "package-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	var upstream features.Index
	if err := json.Unmarshal(raw, &upstream); err != nil {
		t.Fatal(err)
	}
	for _, fx := range realFixtures {
		dir := realFixtureDir(fx.redist, fx.version)
		for name, want := range buildRealFixture(t, upstream, fx.redist, fx.version) {
			path := filepath.Join(dir, name)
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the manifest and upstream's index give (UPDATE_GOLDEN=1 rewrites it)", path)
			}
		}
	}
}
