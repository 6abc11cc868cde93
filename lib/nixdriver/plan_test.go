package nixdriver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
)

// d is a derivation of a test plan: its .drv and output paths.
func d(name string) Derivation {
	return Derivation{Drv: "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-" + name + ".drv", Out: "/nix/store/0123456789abcdfghijklmnpqrsvwxyz-" + name}
}

// testPlan has two entries of one manifest and the merged index. The
// second entry's fetch is named like a detection, its detection like a
// fetch: the roles follow the plan's stages, not the names.
func testPlan() *Plan {
	return &Plan{
		Manifests: []PlannedManifest{{
			Manifest:  Manifest{RedistName: "r", Version: "1.0", Path: "/m/redistrib_1.0.json"},
			Aggregate: d("r-1.0-features"),
			Entries: []Entry{
				{Manifest: "1.0", Archive: manifest.Archive{Package: "a", Platform: "linux-x86_64"},
					Fetch: d("a.tar.xz"), Unpack: d("a"), Detect: d("a-features.json")},
				{Manifest: "1.0", Archive: manifest.Archive{Package: "b", Platform: "windows-x86_64", Variant: "cuda12"},
					Fetch: d("b-features.json"), Unpack: d("b"), Detect: d("b.tar.xz")},
			},
		}},
		Index: &Derivation{Drv: d("r-index").Drv, Out: d("r-index").Out},
	}
}

func TestPlanRoles(t *testing.T) {
	want := nixlog.Roles{
		d("a.tar.xz").Drv:        {Stage: nixlog.Fetch, Subject: "a"},
		d("a").Drv:               {Stage: nixlog.Unpack, Subject: "a"},
		d("a-features.json").Drv: {Stage: nixlog.Detect, Subject: "a"},
		d("b-features.json").Drv: {Stage: nixlog.Fetch, Subject: "b"},
		d("b").Drv:               {Stage: nixlog.Unpack, Subject: "b"},
		d("b.tar.xz").Drv:        {Stage: nixlog.Detect, Subject: "b"},
		d("r-1.0-features").Drv:  {Stage: nixlog.Aggregate, Subject: "r-1.0-features"},
		d("r-index").Drv:         {Stage: nixlog.Aggregate, Subject: "r-index"},
	}
	if diff := cmp.Diff(want, testPlan().Roles()); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	// A plan of the archives alone names no derivation.
	p := testPlan()
	p.Manifests[0].Aggregate, p.Index = Derivation{}, nil
	for i := range p.Manifests[0].Entries {
		e := &p.Manifests[0].Entries[i]
		e.Fetch, e.Unpack, e.Detect = Derivation{}, Derivation{}, Derivation{}
	}
	if roles := p.Roles(); len(roles) != 0 {
		t.Errorf("archives alone: roles %v", roles)
	}
}

func TestPlanTargets(t *testing.T) {
	p := testPlan()
	if diff := cmp.Diff([]string{d("r-1.0-features").Drv, d("r-index").Drv}, p.targets(BuildFeatures)); diff != "" {
		t.Errorf("features (-want +got):\n%s", diff)
	}
	// b is a Windows archive: check-nixpkgs checks none, so none is built.
	if diff := cmp.Diff([]string{d("a-features.json").Drv}, p.targets(BuildDetections)); diff != "" {
		t.Errorf("detections (-want +got):\n%s", diff)
	}
}

// TestCheckInput: every entry is an archive of the check, in the plan's
// order; only a built detection of a checked platform is read; the
// releases are the Go parser's, the refused manifests passed on.
func TestCheckInput(t *testing.T) {
	p := testPlan()
	dir := t.TempDir()
	// a's detection, at its output path's base name in dir.
	a := &p.Manifests[0].Entries[0]
	a.Detect.Out = filepath.Join(dir, "a-features.json")
	if err := os.WriteFile(a.Detect.Out, []byte(`{"outputs":{"lib":true},"narHash":"sha256-x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	b := p.Manifests[0].Entries[1]
	refused := Refused{Path: "/m/redistrib_2.0.json", Err: errors.New("bad")}
	parsed := &manifest.Manifest{Releases: map[string]*manifest.Release{"a": {Version: "1.2"}, "b": {Version: "3"}}}
	o := &Outcome{runner: &Runner{}, Refused: []Refused{refused}, Manifests: []ManifestOutcome{{
		PlannedManifest: p.Manifests[0],
		Parsed:          parsed,
		// b's detection "built" (a Windows archive: not read).
		BuiltEntries: []Entry{*a, b},
	}}}
	var in nixpkgscheck.Input
	o.CheckInput(context.Background(), &in, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if diff := cmp.Diff([]nixpkgscheck.Manifest{{Redist: "r", Version: "1.0", Releases: map[string]string{"a": "1.2", "b": "3"}, Dir: "/m", Parsed: parsed}}, in.Manifests); diff != "" {
		t.Errorf("manifests (-want +got):\n%s", diff)
	}
	if len(in.Refused) != 1 || in.Refused[0].Path != refused.Path || in.Refused[0].Err != refused.Err {
		t.Errorf("refused %+v", in.Refused)
	}
	if len(in.Archives) != 2 {
		t.Fatalf("archives %+v", in.Archives)
	}
	if got := in.Archives[0]; got.Package != "a" || got.Features == nil || !got.Features.Outputs["lib"] {
		t.Errorf("a: %+v", got)
	}
	if got := in.Archives[1]; got.Package != "b" || got.Variant != "cuda12" || got.Features != nil {
		t.Errorf("b: %+v", got)
	}
	// Not built: no detection read, though the file is there.
	o.Manifests[0].BuiltEntries = nil
	in = nixpkgscheck.Input{}
	o.CheckInput(context.Background(), &in, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if len(in.Archives) != 2 || in.Archives[0].Features != nil {
		t.Errorf("nothing built: %+v", in.Archives)
	}
}

// TestEntryFromCLI: an entry as nix/cli.nix lists it decodes to the
// manifest's archive, its "None" to NoVariant, and its ID names the
// variant as the pipeline does.
func TestEntryFromCLI(t *testing.T) {
	for _, tt := range []struct {
		json, id string
		want     manifest.Archive
	}{
		{`{"package": "a", "platform": "linux-x86_64", "variant": "None", "relativePath": "a/a.tar.xz", "sha256": "h",
		   "fetch": {"drv": "f.drv", "out": "f"}, "unpack": {"drv": "", "out": ""}, "detect": {"drv": "", "out": ""},
		   "pinnedNarHash": "", "unpinned": {"drv": "", "out": ""}}`,
			"1.0 a/linux-x86_64/None", manifest.Archive{Package: "a", Platform: "linux-x86_64", RelativePath: "a/a.tar.xz", SHA256: "h"}},
		{`{"package": "b", "platform": "linux-sbsa", "variant": "cuda13.1", "relativePath": "b/b.tar.xz", "sha256": "h"}`,
			"1.0 b/linux-sbsa/cuda13.1", manifest.Archive{Package: "b", Platform: "linux-sbsa", Variant: "cuda13.1", RelativePath: "b/b.tar.xz", SHA256: "h"}},
	} {
		var e Entry
		if err := json.Unmarshal([]byte(tt.json), &e); err != nil {
			t.Fatal(err)
		}
		e.Manifest = "1.0"
		if e.Archive != tt.want || e.ID() != tt.id {
			t.Errorf("entry %s: %+v (%s), want %+v (%s)", tt.json, e.Archive, e.ID(), tt.want, tt.id)
		}
	}
}
