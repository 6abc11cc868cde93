package manifest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRealManifests parses every real NVIDIA manifest and checks the
// counts against an independent walk of the JSON.
func TestRealManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.Manifests(t), "*", "redistrib_*.json"))
	if len(files) < 22 {
		t.Fatalf("found %d manifests, want the 22 in manifests/", len(files))
	}
	total := 0
	for _, f := range files {
		m, err := manifest.ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		n := len(m.Archives())
		if n == 0 {
			t.Errorf("%s: no archives", f)
		}
		total += n
	}
	t.Logf("%d manifests, %d archives", len(files), total)
}

func TestParseLayouts(t *testing.T) {
	v3 := `{"release_date":"2025-01-01","libx":{"name":"X","license":"L","version":"1.2","cuda_variant":["11","12"],
	  "linux-x86_64":{"cuda11":{"relative_path":"libx/a_cuda11.tar.xz","sha256":"` + strings.Repeat("a", 64) + `","md5":"m","size":"1"},
	                  "cuda12":{"relative_path":"libx/a_cuda12.tar.xz","sha256":"` + strings.Repeat("b", 64) + `","md5":"m","size":"1"}}},
	  "src":{"name":"S","license":"L","version":"1","source":{"relative_path":"src/s.tar.xz","sha256":"` + strings.Repeat("c", 64) + `"}}}`
	m, err := manifest.Parse("v3.json", []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range m.Archives() {
		ids = append(ids, a.ID()+"="+a.Variant.String())
	}
	if got, want := strings.Join(ids, " "), "libx/linux-x86_64/cuda11=cuda11 libx/linux-x86_64/cuda12=cuda12 src/source=None"; got != want {
		t.Errorf("archives = %s, want %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	h := strings.Repeat("a", 64)
	tests := []struct{ name, json, want string }{
		{"broken JSON", `{"a":`, "manifest m.json:1:6: not valid JSON"},
		{"unknown platform", `{"p":{"version":"1","linux-riscv":{"relative_path":"x","sha256":"` + h + `"}}}`, `package p: unknown key "linux-riscv"`},
		{"unknown top-level scalar", `{"release_notes":"x"}`, `unknown top-level key "release_notes"`},
		{"unknown leaf field", `{"p":{"version":"1","linux-x86_64":{"relative_path":"x","sha256":"` + h + `","url":"u"}}}`, `platform linux-x86_64: unknown archive field "url"`},
		{"bad sha256", `{"p":{"version":"1","linux-x86_64":{"relative_path":"x","sha256":"XYZ"}}}`, `sha256 "XYZ" is not 64 lowercase hex digits`},
		{"escaping path", `{"p":{"version":"1","linux-x86_64":{"relative_path":"../x","sha256":"` + h + `"}}}`, `leaves the base URL`},
		{"variant not declared", `{"p":{"version":"1","cuda_variant":["12"],"linux-x86_64":{"cuda11":{"relative_path":"x","sha256":"` + h + `"}}}}`, `variant cuda11: not listed in cuda_variant`},
		{"no version", `{"p":{"name":"n"}}`, "package p: no version"},
		{"duplicate package", `{"p":{"version":"1"},"p":{"version":"2"}}`, `m.json:1:25: top level: duplicate key "p"`},
		{"duplicate platform", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a","sha256":"` + h + `"},"linux-x86_64":{"relative_path":"b","sha256":"` + h + `"}}}`, `package p: duplicate key "linux-x86_64"`},
		{"duplicate leaf key", `{"p":{"version":"1","linux-x86_64":{"cuda12":{"relative_path":"a","sha256":"` + h + `","sha256":"` + h + `"}}}}`, `package p: platform linux-x86_64: variant cuda12: duplicate key "sha256"`},
		{"deep nesting", strings.Repeat(`{"p":`, 100), "manifest m.json:1:322: package p: platform p: variant p: key p: and 60 keys deeper: nested too deeply: more than 64 arrays and objects inside each other (byte 321)"},
		{"trailing data", `{"p":{"version":"1"}} {}`, "data after the top-level value"},
		{"absolute path", `{"p":{"version":"1","linux-x86_64":{"relative_path":"/etc/x","sha256":"` + h + `"}}}`, `package p: platform linux-x86_64: relative_path "/etc/x" leaves the base URL`},
		{"dot component", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/./x","sha256":"` + h + `"}}}`, `relative_path "a/./x" is unsafe`},
		{"store-name character", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/x y.tar.xz","sha256":"` + h + `"}}}`, `relative_path "a/x y.tar.xz" is unsafe`},
		{"query character", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/x.tar.xz?y=1","sha256":"` + h + `"}}}`, `is unsafe`},
		{"hidden name", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/.x","sha256":"` + h + `"}}}`, `is unsafe`},
		{"long name", `{"p":{"version":"1","linux-x86_64":{"relative_path":"` + strings.Repeat("n", 181) + `","sha256":"` + h + `"}}}`, `file name longer than 180`},
		{"numeric variant", `{"p":{"version":"1","cuda_variant":[12]}}`, `cuda_variant holds Number, not a string`},
		{"empty variant list", `{"p":{"version":"1","cuda_variant":[],"linux-x86_64":{"cuda12":{"relative_path":"x","sha256":"` + h + `"}}}}`, `not listed in cuda_variant`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Parse("m.json", []byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"p":{"version":"1","cuda_variant":["12"],"linux-x86_64":{"cuda12":{"relative_path":"x","sha256":"` + strings.Repeat("a", 64) + `"}}}}`))
	f.Add([]byte(`{"p":{"version":"1","cuda_variant":["13","13.1"],"windows-arm64":{"relative_path":"a","sha256":"` + strings.Repeat("b", 64) + `","cuda13.1":{"relative_path":"x","sha256":"` + strings.Repeat("a", 64) + `"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse("fuzz.json", data)
		if err == nil {
			for _, a := range m.Archives() {
				if a.RelativePath == "" || len(a.SHA256) != 64 {
					t.Fatalf("accepted archive %+v", a)
				}
			}
		}
	})
}

// TestGoldenEntryCounts writes (UPDATE_GOLDEN=1) or checks the number of
// archives the Go parser finds in each bundled manifest. nix/tests.nix
// compares the Nix walker's counts with the same file, so the two parsers
// are held to each other.
func TestGoldenEntryCounts(t *testing.T) {
	repo := testenv.RepoRoot()
	files, err := filepath.Glob(filepath.Join(repo, "manifests", "*", "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled manifests: %v", err)
	}
	counts := map[string]int{}
	for _, f := range files {
		m, err := manifest.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(repo, "manifests"), f)
		counts[filepath.ToSlash(rel)] = len(m.Archives())
	}
	checkGolden(t, "entry-counts.json", counts)
}

// nixpkgsManifestCount is how many manifests tests/testdata/nixpkgs-manifests
// pins: every one Nixpkgs carries, of 14 redists.
const nixpkgsManifestCount = 217

// nixpkgsManifests lists the pinned Nixpkgs manifests, relative paths
// "<redist>/redistrib_<version>.json" to absolute ones.
func nixpkgsManifests(t *testing.T) map[string]string {
	t.Helper()
	dir := testenv.NixpkgsManifests(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "redistrib_*.json"))
	if err != nil || len(files) != nixpkgsManifestCount {
		t.Fatalf("%s: %d manifests (%v), want %d", dir, len(files), err, nixpkgsManifestCount)
	}
	out := map[string]string{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		out[filepath.ToSlash(rel)] = f
	}
	return out
}

// independentArchives lists a manifest's archives as
// "package/platform/variant relative_path sha256" without lib/manifest:
// encoding/json into plain maps, and any object under a package is a
// platform, any object under a platform a variant ("None" for a platform
// that is itself an archive). It knows no key list, so it cannot share
// the parser's blind spots.
func independentArchives(t *testing.T, data []byte) []string {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(pkg, platform, variant string, leaf map[string]any) {
		out = append(out, fmt.Sprintf("%s/%s/%s %v %v", pkg, platform, variant, leaf["relative_path"], leaf["sha256"]))
	}
	for pkg, release := range top {
		r, ok := release.(map[string]any)
		if !ok {
			continue
		}
		for platform, value := range r {
			p, ok := value.(map[string]any)
			if !ok {
				continue
			}
			if _, ok := p["relative_path"]; ok {
				add(pkg, platform, "None", p)
			}
			for variant, leaf := range p {
				if l, ok := leaf.(map[string]any); ok {
					add(pkg, platform, variant, l)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestEveryNixpkgsManifest: each of the 217 manifests Nixpkgs carries
// parses, and its archives are exactly those an independent walk of the
// raw JSON finds (same package, platform, variant, path and hash). The
// per-file counts are tests/golden/nixpkgs-entry-counts.json, which
// nix/tests.nix holds the Nix walker to (UPDATE_GOLDEN=1 rewrites it).
func TestEveryNixpkgsManifest(t *testing.T) {
	counts := map[string]int{}
	total := 0
	for rel, f := range nixpkgsManifests(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Parse(rel, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var got []string
		for _, a := range m.Archives() {
			got = append(got, fmt.Sprintf("%s/%s/%s %s %s", a.Package, a.Platform, a.Variant.String(), a.RelativePath, a.SHA256))
		}
		sort.Strings(got)
		want := independentArchives(t, data)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the parser found %d archives, the independent walk %d:\nparser: %q\nwalk:   %q", rel, len(got), len(want), got, want)
		}
		counts[rel] = len(got)
		total += len(got)
	}
	if total < 7000 {
		t.Errorf("%d archives in all, want over 7000", total)
	}
	checkGolden(t, "nixpkgs-entry-counts.json", counts)
	t.Logf("%d manifests, %d archives", len(counts), total)
}

// checkGolden compares v, encoded as the tool writes JSON, with
// tests/golden/name (UPDATE_GOLDEN=1 writes it first).
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	data, err := features.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(testenv.RepoRoot(), "tests", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != string(data) {
		t.Errorf("differs from %s:\n%s", golden, data)
	}
}

// TestPinnedManifestsAreShared: the pinned copy equals the project's
// shared data (../shared/data/manifests, or $CRFF_SHARED/data/manifests)
// when that is there, file for file; without it the pinned copy and its
// checksums are all there is to test against.
func TestPinnedManifestsAreShared(t *testing.T) {
	shared := testenv.Shared()
	if shared == "" {
		t.Log("no shared data beside the repository (../shared or CRFF_SHARED): the pinned copy stands alone")
		return
	}
	theirs, _ := filepath.Glob(filepath.Join(shared, "data", "manifests", "*", "redistrib_*.json"))
	ours := nixpkgsManifests(t)
	if len(theirs) != len(ours) {
		t.Errorf("%s holds %d manifests, tests/testdata/nixpkgs-manifests %d", shared, len(theirs), len(ours))
	}
	for _, f := range theirs {
		rel, _ := filepath.Rel(filepath.Join(shared, "data", "manifests"), f)
		a, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(ours[filepath.ToSlash(rel)])
		if err != nil || string(a) != string(b) {
			t.Errorf("%s: the pinned copy differs or is missing (%v)", rel, err)
		}
	}
}

// TestFormatDrift holds each change of NVIDIA's format seen across the
// 217 Nixpkgs manifests to the real file that shows it first.
func TestFormatDrift(t *testing.T) {
	d := drift{files: nixpkgsManifests(t)}
	for _, c := range []struct {
		name  string
		check func(*testing.T, drift)
	}{
		{"major.minor variants (cuda_compat from CUDA 13.1.1)", driftMajorMinorVariants},
		{"windows-arm64 platform (CUDA 13.4.1, cuDNN 9.27)", driftWindowsArm64},
		{"an archive and a variant side by side (cuDNN 9.27 windows-arm64)", driftArchiveAndVariant},
		{"cccl replaces cuda_cccl (CUDA 13.3.0)", driftCcclReplacesCudaCccl},
		{".tar.zst archives (TensorRT 11)", driftTarZst},
		{"metadata keys are optional (CUDA 11.4.2, TensorRT 10.0.0)", driftOptionalMetadata},
		{"versions of two and four components (NVPL 23.11, nvCOMP 4.1.0.6, cuTENSOR 2.0.2.1)", driftVersionComponents},
		{"every redist has a base URL", driftBaseURLs},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, d) })
	}
}

// drift reads the Nixpkgs manifests for TestFormatDrift's checks.
type drift struct{ files map[string]string }

func (d drift) read(t *testing.T, rel string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.ReadFile(d.files[rel])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// archiveIDs are the IDs of pkg's archives in m.
func (d drift) archiveIDs(m *manifest.Manifest, pkg string) string {
	var ids []string
	for _, a := range m.Releases[pkg].Archives {
		ids = append(ids, a.ID())
	}
	return strings.Join(ids, " ")
}

func driftMajorMinorVariants(t *testing.T, d drift) {
	for rel, v := range map[string]string{"cuda/redistrib_13.1.1.json": "cuda13.1", "cuda/redistrib_13.2.2.json": "cuda13.2", "cuda/redistrib_13.3.1.json": "cuda13.3"} {
		m := d.read(t, rel)
		if got, want := d.archiveIDs(m, "cuda_compat"), "cuda_compat/linux-sbsa/"+v+" cuda_compat/linux-x86_64/"+v; got != want {
			t.Errorf("%s: cuda_compat archives %q, want %q", rel, got, want)
		}
		if got := m.Releases["cuda_compat"].Variants; len(got) != 1 || string(got[0]) != v {
			t.Errorf("%s: cuda_variant %v, want [%s]", rel, got, v)
		}
	}
}

func driftWindowsArm64(t *testing.T, d drift) {
	for _, rel := range []string{"cuda/redistrib_13.4.1.json", "cuda/redistrib_13.4.2.json", "cudnn/redistrib_9.27.0.json"} {
		n := 0
		for _, a := range d.read(t, rel).Archives() {
			if a.Platform == "windows-arm64" {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no windows-arm64 archive", rel)
		}
	}
	if _, ok := d.read(t, "cuda/redistrib_13.4.2.json").Archive("cccl", "windows-arm64", manifest.NoVariant); !ok {
		t.Error("cuda 13.4.2: no cccl/windows-arm64")
	}
}

func driftArchiveAndVariant(t *testing.T, d drift) {
	m := d.read(t, "cudnn/redistrib_9.27.0.json")
	plain, ok1 := m.Archive("cudnn", "windows-arm64", manifest.NoVariant)
	v13, ok2 := m.Archive("cudnn", "windows-arm64", "cuda13")
	if !ok1 || !ok2 || !strings.HasSuffix(plain.RelativePath, "_cuda13.4-archive.zip") || !strings.HasSuffix(v13.RelativePath, "_cuda13-archive.zip") || plain.SHA256 == v13.SHA256 {
		t.Errorf("windows-arm64: %+v (%v), %+v (%v)", plain, ok1, v13, ok2)
	}
}

func driftCcclReplacesCudaCccl(t *testing.T, d drift) {
	before, after := d.read(t, "cuda/redistrib_13.2.2.json"), d.read(t, "cuda/redistrib_13.3.0.json")
	if before.Releases["cuda_cccl"] == nil || before.Releases["cccl"] != nil || after.Releases["cccl"] == nil || after.Releases["cuda_cccl"] != nil {
		t.Error("want cuda_cccl in 13.2.2 only and cccl in 13.3.0 only")
	}
	if got := d.archiveIDs(after, "cccl"); !strings.Contains(got, "cccl/linux-x86_64") {
		t.Errorf("cccl archives: %s", got)
	}
}

func driftTarZst(t *testing.T, d drift) {
	for _, rel := range []string{"tensorrt/redistrib_11.0.0.json", "tensorrt/redistrib_11.1.0.json", "tensorrt/redistrib_11.3.0.json"} {
		n := 0
		for _, a := range d.read(t, rel).Archives() {
			if strings.HasSuffix(a.RelativePath, ".tar.zst") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no .tar.zst archive", rel)
		}
	}
}

func driftOptionalMetadata(t *testing.T, d drift) {
	if m := d.read(t, "cuda/redistrib_11.4.2.json"); m.Date == "" || m.Label != "" || m.Product != "" {
		t.Errorf("cuda 11.4.2: date %q label %q product %q", m.Date, m.Label, m.Product)
	}
	if m := d.read(t, "tensorrt/redistrib_10.0.0.json"); m.Date != "" || m.Label == "" {
		t.Errorf("tensorrt 10.0.0: date %q label %q", m.Date, m.Label)
	}
}

func driftVersionComponents(t *testing.T, d drift) {
	for _, rel := range []string{"nvpl/redistrib_23.11.json", "nvcomp/redistrib_4.1.0.6.json", "cutensor/redistrib_2.0.2.1.json"} {
		if !manifest.ManifestFile.MatchString(filepath.Base(rel)) {
			t.Errorf("%s: not taken for a manifest", rel)
		}
		d.read(t, rel)
	}
}

func driftBaseURLs(t *testing.T, d drift) {
	seen := map[string]bool{}
	for rel := range d.files {
		redist := strings.Split(rel, "/")[0]
		if _, ok := manifest.BaseURL(redist); !ok && !seen[redist] {
			t.Errorf("%s: no base URL in base-urls.json", redist)
		}
		seen[redist] = true
	}
	if len(seen) != 14 {
		t.Errorf("%d redists, want 14", len(seen))
	}
}

// TestParseDriftShapes: the new shapes parse, and their look-alikes are
// still refused.
func TestParseDriftShapes(t *testing.T) {
	h := strings.Repeat("a", 64)
	leaf := func(p string) string { return `{"relative_path":"` + p + `","sha256":"` + h + `"}` }
	m, err := manifest.Parse("m.json", []byte(`{"p":{"version":"1","cuda_variant":["13","13.1"],
	  "windows-arm64":{"relative_path":"p/a.zip","sha256":"`+h+`","md5":"m","size":"1","cuda13":`+leaf("p/b.zip")+`,"cuda13.1":`+leaf("p/c.zip")+`}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range m.Archives() {
		got = append(got, a.ID()+"="+a.RelativePath)
	}
	if want := "p/windows-arm64=p/a.zip p/windows-arm64/cuda13=p/b.zip p/windows-arm64/cuda13.1=p/c.zip"; strings.Join(got, " ") != want {
		t.Errorf("archives %q, want %q", got, want)
	}
	bad := []struct{ name, json, want string }{
		{"unknown field beside variants", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a","sha256":"` + h + `","url":"u","cuda12":` + leaf("b") + `}}}`, `unknown archive field "url"`},
		{"variant beside an archive, not listed", `{"p":{"version":"1","cuda_variant":["12"],"linux-x86_64":{"relative_path":"a","sha256":"` + h + `","cuda13":` + leaf("b") + `}}}`, `variant cuda13: not listed`},
		{"variant beside an archive, not an object", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a","sha256":"` + h + `","cuda13":"x"}}}`, `variant cuda13: is String`},
		{"three-part variant", `{"p":{"version":"1","linux-x86_64":{"cuda13.1.2":` + leaf("b") + `}}}`, `variant cuda13.1.2: unknown key`},
		{"trailing dot", `{"p":{"version":"1","linux-x86_64":{"cuda13.":` + leaf("b") + `}}}`, `variant cuda13.: unknown key`},
		{"windows-arm65", `{"p":{"version":"1","windows-arm65":` + leaf("b") + `}}`, `unknown key "windows-arm65"`},
	}
	for _, tc := range bad {
		if _, err := manifest.Parse("m.json", []byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
