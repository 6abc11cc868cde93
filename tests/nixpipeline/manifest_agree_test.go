package nixpipeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// manifestGen builds random manifests: mostly well formed, with a
// sprinkling of every kind of defect the parsers must refuse (unknown
// keys, wrong types, unsafe relative paths, bad hashes, undeclared
// variants). Duplicate keys are not generated: Nix cannot see them (the Go
// side refuses them before Nix evaluates; see nix/manifest.nix).
type manifestGen struct{ r *rand.Rand }

func (g manifestGen) chance(p float64) bool { return g.r.Float64() < p }

func (g manifestGen) pick(xs ...any) any { return xs[g.r.Intn(len(xs))] }

func (g manifestGen) relativePath() any {
	if g.chance(0.97) {
		return g.pick("p/linux-x86_64/p-1.0-archive.tar.xz", "a.tar.xz", "x/y/z-1_cuda12.zip", "lib+x/a=b.tar.gz", "A-B_C.tar")
	}
	return g.pick("/abs/x.tar.xz", "../x.tar.xz", "a/../b.tar.xz", "a/./b", "a b.tar.xz", "x?y", ".hidden", "a//b", "", 7, "a/", strings.Repeat("n", 181))
}

func (g manifestGen) sha256() any {
	if g.chance(0.98) {
		return fmt.Sprintf("%064x", g.r.Int63())
	}
	return g.pick(strings.Repeat("A", 64), "abc", 1, strings.Repeat("a", 65))
}

func (g manifestGen) leaf() any {
	if g.chance(0.01) {
		return "not an object"
	}
	l := map[string]any{}
	if g.chance(0.99) {
		l["relative_path"] = g.relativePath()
	}
	if g.chance(0.99) {
		l["sha256"] = g.sha256()
	}
	if g.chance(0.5) {
		l["md5"] = "0123"
		if g.chance(0.01) {
			l["md5"] = 5
		}
	}
	if g.chance(0.5) {
		l["size"] = "1234"
		if g.chance(0.01) {
			l["size"] = 99
		}
	}
	if g.chance(0.01) {
		l["url"] = "u"
	}
	return l
}

// cudaVariant is a release's cuda_variant list for variants, now and
// then with a bad entry or not a list.
func (g manifestGen) cudaVariant(variants []string) any {
	cv := []any{}
	for _, v := range variants {
		cv = append(cv, strings.TrimPrefix(v, "cuda"))
	}
	if g.chance(0.02) {
		cv = append(cv, 13)
	}
	if g.chance(0.01) {
		return "12"
	}
	return cv
}

// variantLeaves is a platform's object of variants: most of variants,
// now and then a bad name, or an archive beside them.
func (g manifestGen) variantLeaves(variants []string) map[string]any {
	vs := map[string]any{}
	for _, v := range variants {
		if g.chance(0.8) {
			vs[v] = g.leaf()
		}
	}
	if g.chance(0.02) {
		vs[g.pick("cuda13", "cudaX", "cuda", "cuda13.1.2", "cuda13.").(string)] = g.leaf()
	}
	if g.chance(0.1) {
		// An archive beside the variants (cuDNN 9.27's windows-arm64).
		if l, ok := g.leaf().(map[string]any); ok {
			maps.Copy(vs, l)
		}
	}
	return vs
}

func (g manifestGen) release(variants []string) map[string]any {
	r := map[string]any{}
	if g.chance(0.98) {
		r["version"] = g.pick("1.0", "12.8.57", "2", "3.1", "4", "5", "6", "7", "", 3)
	}
	if g.chance(0.5) {
		r["name"] = "Name"
		if g.chance(0.02) {
			r["name"] = 4
		}
	}
	if g.chance(0.3) {
		r["license"] = "L"
	}
	if g.chance(0.2) {
		r["license_path"] = "p/LICENSE.txt"
	}
	if variants != nil {
		r["cuda_variant"] = g.cudaVariant(variants)
	}
	platforms := []any{"linux-x86_64", "linux-sbsa", "linux-aarch64", "windows-x86_64", "windows-arm64", "linux-all", "source"}
	if g.chance(0.02) {
		platforms = append(platforms, "linux-riscv64")
	}
	for n := g.r.Intn(4); n > 0; n-- {
		p := g.pick(platforms...).(string)
		if variants == nil || p == "source" || g.chance(0.02) {
			r[p] = g.leaf()
			continue
		}
		r[p] = g.variantLeaves(variants)
	}
	return r
}

func (g manifestGen) manifest() map[string]any {
	m := map[string]any{}
	if g.chance(0.7) {
		m["release_date"] = g.pick("2025-01-01", "2025", "2024", 2025)
	}
	if g.chance(0.3) {
		m["release_label"] = "12.8.0"
	}
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		var variants []string
		if g.chance(0.4) {
			variants = []string{"cuda11", "cuda12"}[:1+g.r.Intn(2)]
			if g.chance(0.2) {
				variants = []string{"cuda13.1"} // cuda_compat from CUDA 13.1
			}
		}
		// Package keys are any string to Go: Nix syntax and a path in one
		// must stay data, never reach a name or URL.
		m[g.pick("cuda_cudart", "libcublas", "a.b", "p-1", "x_y", `${builtins.abort "key"}`, "../a b/c", strings.Repeat("k", 300)).(string)] = g.release(variants)
	}
	if g.chance(0.02) {
		m["release_notes"] = "x"
	}
	return m
}

// archiveKeys renders entries in one comparable form: the archive and
// its release's information (the index format's releaseInfo, which the
// aggregate takes from the Nix walker).
func archiveKeys(a manifest.Archive, r *manifest.Release) string {
	info := r.Info()
	return strings.Join([]string{a.Package, a.Platform, a.Variant.String(), a.RelativePath, a.SHA256, info.Version, info.Name, info.License, info.LicensePath}, "|")
}

// TestNixWalkerListsWhatGoAccepts: the Go parser is the one validator,
// the Nix walker (nix/manifest.nix) only lists. On a few hundred
// generated manifests, in one nix-instantiate:
//   - for each manifest Go accepts, the walker lists exactly the archives
//     and release information Go finds;
//   - for each manifest Go refuses, the walker does not fail, every
//     derivation of its pipeline instantiates (hostile paths, hashes and
//     names are left out, never reach a name or URL), and its aggregate
//     fails to build with Go's error naming the manifest (built with no
//     archive selected, so nothing is fetched).
//
// longStrings are manifests of strings at and far past Go's bounds
// (Nix's regular expressions ran out of stack on some hundred kB): a
// relative_path of 4,096 bytes (listed), one of 600 kB, a variant key of
// a million digits, and a sha256 of a million characters.
var longStrings = func() [4][]byte {
	const hash = `"sha256": "` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `"`
	leaf := func(path string) string { return `{"relative_path": "` + path + `x.tar.xz", ` + hash + `}` }
	release := func(platform string) []byte {
		return []byte(`{"p": {"name": "p", "license": "l", "version": "1", "linux-x86_64": ` + platform + `}}`)
	}
	return [4][]byte{
		release(leaf(strings.Repeat("a/", 2044))),
		release(leaf(strings.Repeat("a/", 300000))),
		release(`{"cuda` + strings.Repeat("1", 1000000) + `": ` + leaf("") + `}`),
		release(`{"relative_path": "x.tar.xz", "sha256": "` + strings.Repeat("0", 1000000) + `"}`),
	}
}()

func TestNixWalkerListsWhatGoAccepts(t *testing.T) {
	requireNix(t)
	const n = 400
	dir := t.TempDir()
	want, goErr, accepted := writeGeneratedManifests(t, dir, n)
	if accepted < n/4 || accepted > n*3/4 {
		t.Fatalf("the generator is off balance: %d of %d manifests valid", accepted, n)
	}
	got := nixWalkerEntries(t, dir, n)
	var validations []string
	for i, r := range got {
		if !strings.HasSuffix(r.Pipeline, ".drv") {
			t.Errorf("manifest %d: its pipeline did not instantiate: %q", i, r.Pipeline)
		}
		if goErr[i] != nil {
			validations = append(validations, r.Validation)
			continue
		}
		sort.Strings(r.Entries)
		if strings.Join(r.Entries, "\n") != strings.Join(want[i], "\n") {
			data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("redistrib_%d.json", i)))
			t.Errorf("manifest %d, which Go accepts, listed differently:\n%s\nGo:  %q\nNix: %q", i, data, want[i], r.Entries)
		}
	}
	// Each refused manifest's aggregate fails, with Go's message.
	_, stderr, err := nix(t, append([]string{"nix-store", "--realise", "--keep-going", "--no-gc-warning"}, validations...)...)
	if err == nil {
		t.Fatalf("the aggregates of %d manifests Go refuses built", len(validations))
	}
	for i, r := range got {
		if goErr[i] != nil && !strings.Contains(stderr, goErr[i].Error()) {
			t.Errorf("the aggregate of manifest %d (%s) did not fail with Go's error %q", i, r.Validation, goErr[i])
		}
	}
	if t.Failed() {
		t.Logf("nix-store --realise:\n%s", stderr)
	}
	t.Logf("%d manifests: %d accepted and listed alike, %d refused by their aggregates", n, accepted, len(validations))
}

// writeGeneratedManifests writes n manifests, redistrib_<i>.json, to
// dir: generated ones, with four that are no object and four with
// long strings among them. want[i] is the sorted archive keys Go lists
// from manifest i, goErr[i] its error when Go refuses it.
func writeGeneratedManifests(t *testing.T, dir string, n int) (want [][]string, goErr []error, accepted int) {
	t.Helper()
	g := manifestGen{rand.New(rand.NewSource(20261123))}
	want, goErr = make([][]string, n), make([]error, n) // want nil: refused
	for i := 0; i < n; i++ {
		data := generatedManifest(t, g, i)
		name := fmt.Sprintf("redistrib_%d.json", i)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Named as the aggregate builder names it: <redistName>/<file>.
		m, err := manifest.Parse("gen/"+name, data)
		if err != nil {
			goErr[i] = err
			continue
		}
		accepted++
		want[i] = goArchiveKeys(m)
	}
	return want, goErr, accepted
}

// generatedManifest is the text of manifest i: every hundred, one that
// is no object and one with long strings, else the generator's.
func generatedManifest(t *testing.T, g manifestGen, i int) []byte {
	t.Helper()
	switch i % 100 {
	case 99:
		return []byte([]string{`[1]`, `"x"`, `null`, `7`}[i/100]) // not an object
	case 98:
		return longStrings[i/100]
	}
	data, err := json.Marshal(g.manifest())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// goArchiveKeys are the sorted keys of every archive Go reads from m.
func goArchiveKeys(m *manifest.Manifest) []string {
	keys := []string{}
	for _, pkg := range m.Packages() {
		r := m.Releases[pkg]
		for _, a := range r.Archives {
			keys = append(keys, archiveKeys(a, r))
		}
	}
	sort.Strings(keys)
	return keys
}

// walkerResult is what testdata/manifest-entries.nix gives for one
// manifest: the entries the Nix walker lists, the pipeline's
// derivation, and the aggregate that validates the manifest.
type walkerResult struct {
	Entries    []string `json:"entries"`
	Pipeline   string   `json:"pipeline"`
	Validation string   `json:"validation"`
}

// nixWalkerEntries evaluates testdata/manifest-entries.nix over dir's
// n manifests.
func nixWalkerEntries(t *testing.T, dir string, n int) []walkerResult {
	t.Helper()
	expr := filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "manifest-entries.nix")
	out := mustNix(t, "nix-instantiate", "--eval", "--strict", "--json", "--read-write-mode", expr,
		"--argstr", "nixLib", filepath.Join(repoRoot(), "nix"), "--argstr", "aggregateProgram", aggregateBinary(t),
		"--argstr", "dir", dir, "--argstr", "n", strconv.Itoa(n))
	var got []walkerResult
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != n {
		t.Fatalf("nix result: %v (%d results)", err, len(got))
	}
	return got
}

// TestNixWalkerReadsEveryNixpkgsManifest: the Nix walker finds in each of
// the 217 manifests Nixpkgs carries exactly the archives the Go parser
// finds (package, platform, variant, path, hash, release info), all in one
// nix-instantiate; the evaluation time is logged, never judged.
func TestNixWalkerReadsEveryNixpkgsManifest(t *testing.T) {
	requireNix(t)
	dir := testenv.NixpkgsManifests(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "redistrib_*.json"))
	if len(files) != 217 {
		t.Fatalf("%d manifests in %s, want 217", len(files), dir)
	}
	want := map[string][]string{}
	var rels []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		m, err := manifest.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		keys := []string{}
		for _, pkg := range m.Packages() {
			for _, a := range m.Releases[pkg].Archives {
				keys = append(keys, archiveKeys(a, m.Releases[pkg]))
			}
		}
		sort.Strings(keys)
		want[rel] = keys
		rels = append(rels, rel)
	}
	expr := filepath.Join(repoRoot(), "tests", "nixpipeline", "testdata", "manifest-files.nix")
	list, _ := json.Marshal(rels)
	start := time.Now()
	out := mustNix(t, "nix-instantiate", "--eval", "--strict", "--json", expr,
		"--argstr", "nixLib", filepath.Join(repoRoot(), "nix"), "--argstr", "dir", dir, "--argstr", "files", string(list))
	elapsed := time.Since(start)
	var got map[string][]string
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != len(want) {
		t.Fatalf("nix result: %v (%d manifests)", err, len(got))
	}
	total := 0
	for rel, w := range want {
		g := got[rel]
		sort.Strings(g)
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: Nix found %d archives, Go %d:\nNix: %q\nGo:  %q", rel, len(g), len(w), g, w)
		}
		total += len(g)
	}
	t.Logf("%d manifests, %d archives, read alike; one nix-instantiate took %s", len(got), total, elapsed.Round(time.Millisecond))
}
