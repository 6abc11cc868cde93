package aggregate_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// builderInputs writes a two-archive manifest and a detection per archive
// into dir, and returns the attributes Nix would pass the builder.
func builderInputs(t *testing.T, dir string) aggregate.Attrs {
	t.Helper()
	h := strings.Repeat("b", 64)
	manifestPath := filepath.Join(dir, "redistrib_1.0.json")
	write(t, manifestPath, `{"release_date": "2024-01-01",
	  "liba": {"name": "A", "license": "L", "version": "1.0",
	    "linux-x86_64": {"relative_path": "liba/liba-linux-x86_64-1.0-archive.tar.xz", "sha256": "`+h+`"},
	    "linux-sbsa": {"relative_path": "liba/liba-linux-sbsa-1.0-archive.tar.xz", "sha256": "`+h+`"}}}`)
	a := aggregate.Attrs{
		Outputs:    builderattrs.Outputs{Outputs: map[string]string{"out": filepath.Join(dir, "out")}},
		RedistName: "r", Version: "1.0", Manifest: manifestPath,
		Releases: map[string]features.ReleaseInfo{"liba": {Name: "A", License: "L", Version: "1.0"}},
	}
	for _, platform := range []string{"linux-x86_64", "linux-sbsa"} {
		f := features.Features{Outputs: map[string]bool{"out": true, "lib": platform == "linux-x86_64"}, NarHash: "sha256-" + platform}
		data, err := features.Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, platform+".json")
		write(t, path, string(data))
		a.Archives = append(a.Archives, aggregate.ArchiveAttrs{Archive: manifest.Archive{Package: "liba", Platform: platform,
			RelativePath: "liba/liba-" + platform + "-1.0-archive.tar.xz", SHA256: h}, Features: path})
	}
	return a
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestBuildWritesTheDocuments(t *testing.T) {
	dir := t.TempDir()
	a := builderInputs(t, dir)
	if err := aggregate.Build(a, quiet()); err != nil {
		t.Fatal(err)
	}
	var legacy map[string]map[string]map[string]map[string]bool
	data, err := os.ReadFile(filepath.Join(dir, "out", "feature_1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &legacy); err != nil {
		t.Fatal(err)
	}
	if !legacy["liba"]["linux-x86_64"]["outputs"]["lib"] || legacy["liba"]["linux-sbsa"]["outputs"]["lib"] {
		t.Errorf("feature_1.0.json: %s", data)
	}
	for _, name := range []string{"index.json", "detail.json", "buildRedist.json"} {
		if _, err := os.Stat(filepath.Join(dir, "out", name)); err != nil {
			t.Error(err)
		}
	}
	// The merged index of one index is that index.
	index := filepath.Join(dir, "out", "index.json")
	merged, err := aggregate.MergeIndexFiles([]string{index, index})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(index); string(merged) != string(want) {
		t.Errorf("merged index differs from the only index:\n%s", merged)
	}
}

// TestBuildTakesTheArchivesItIsGiven: the aggregate is of the archives
// and releases Nix passed (the Nix walker lists a manifest's archives, the
// builder does not list them again): an archive the manifest holds but Nix
// did not pass is left out, and the releaseInfo is Nix's.
func TestBuildTakesTheArchivesItIsGiven(t *testing.T) {
	dir := t.TempDir()
	a := builderInputs(t, dir)
	a.Archives = a.Archives[:1]
	a.Releases["liba"] = features.ReleaseInfo{Name: "A from Nix", License: "L", Version: "1.0"}
	if err := aggregate.Build(a, quiet()); err != nil {
		t.Fatal(err)
	}
	var index features.Index
	data, err := os.ReadFile(filepath.Join(dir, "out", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	pkg := index["r"]["1.0"]["liba"]
	if len(pkg.Packages) != 1 || pkg.Packages["linux-x86_64"] == nil || pkg.ReleaseInfo.Name != "A from Nix" {
		t.Errorf("index.json of one archive passed:\n%s", data)
	}
}

// TestBuildRefuses: the builder fails, naming the manifest or archive,
// on a manifest the Go parser refuses and on attributes no walk of a
// manifest gives.
func TestBuildRefuses(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*testing.T, *aggregate.Attrs)
		wants string
	}{
		{"an archive twice", func(_ *testing.T, a *aggregate.Attrs) { a.Archives = append(a.Archives, a.Archives[0]) }, "archive liba/linux-x86_64 passed twice"},
		{"no release information", func(_ *testing.T, a *aggregate.Attrs) { delete(a.Releases, "liba") }, "no release information for package liba (r 1.0)"},
		{"a variant that is none", func(_ *testing.T, a *aggregate.Attrs) { a.Archives[1].Variant = "12" }, `archive liba/linux-sbsa: variant "12" is neither a CUDA variant nor None`},
		{"a duplicate key in the manifest", func(t *testing.T, a *aggregate.Attrs) {
			data, err := os.ReadFile(a.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			write(t, a.Manifest, strings.Replace(string(data), `"license": "L",`, `"license": "L", "license": "M",`, 1))
		}, `package liba: duplicate key "license"`},
		{"an unknown key in the manifest", func(t *testing.T, a *aggregate.Attrs) {
			data, err := os.ReadFile(a.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			write(t, a.Manifest, strings.Replace(string(data), `"license": "L",`, `"license": "L", "linux-riscv64": {},`, 1))
		}, `manifest r/redistrib_1.0.json: package liba: unknown key "linux-riscv64"`},
		{"no out", func(_ *testing.T, a *aggregate.Attrs) { a.Outputs.Outputs = nil }, `no "out" output`},
		{"a detection that is not one", func(_ *testing.T, a *aggregate.Attrs) { a.Archives[0].Features = a.Manifest }, "archive liba/linux-x86_64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a := builderInputs(t, dir)
			tt.edit(t, &a)
			err := aggregate.Build(a, quiet())
			if err == nil || !strings.Contains(err.Error(), tt.wants) {
				t.Fatalf("Build: %v, want an error with %q", err, tt.wants)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("a refused build wrote its output")
			}
		})
	}
}

// TestBuildNamesTheManifestNotTheStorePath: a manifest the Go parser
// refuses is named <redistName>/<file name>, as the run knows it, also
// when the builder reads it from the store (<hash>-<file name>).
func TestBuildNamesTheManifestNotTheStorePath(t *testing.T) {
	dir := t.TempDir()
	a := builderInputs(t, dir)
	stored := filepath.Join(dir, "0123456789abcdfghijklmnpqrsvwxyz-redistrib_1.0.json")
	write(t, stored, `{"liba": {"version": "1.0", "linux-x86_64": 7}}`)
	a.Manifest = stored
	err := aggregate.Build(a, quiet())
	want := "manifest r/redistrib_1.0.json: package liba: platform linux-x86_64 is Number, not an object"
	if err == nil || err.Error() != want {
		t.Fatalf("Build: %v, want %q", err, want)
	}
}
