package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// runCLI runs the command line in-process and returns exit code and output.
func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestHelpGolden checks every command's --help against testdata/help/.
// UPDATE_GOLDEN=1 rewrites the files.
func TestHelpGolden(t *testing.T) {
	names := []string{""}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	for _, name := range names {
		args := []string{"--help"}
		file := "top.txt"
		if name != "" {
			args = []string{name, "--help"}
			file = name + ".txt"
		}
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		checkGolden(t, filepath.Join("testdata", "help", file), stdout, args)
	}
}

// checkGolden compares got with the golden file (UPDATE_GOLDEN=1 writes
// it first); what names the output in messages.
func checkGolden(t *testing.T, golden, got string, what any) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%v (-golden +got):\n%s", what, diff)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{}, exitUsage, "Usage:"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"unpack", "one"}, exitUsage, "unpack takes ARCHIVE and OUTDIR"},
		{[]string{"download-manifests", "--version", "1.0.0", "--min-version", "0.9.0", "http://127.0.0.1:1", "d"}, exitUsage, "mutually exclusive"},
		{[]string{"process-manifests", "--max-version", "x.y", "u", "d"}, exitUsage, `--max-version "x.y"`},
		{[]string{"--log-level", "LOUD", "detect", "."}, exitUsage, `unknown log level "LOUD"`},
		{[]string{"print-feature-schema", "--format", "yaml"}, exitUsage, `unknown format "yaml"`},
		{[]string{"detect", "/nonexistent/dir"}, exitFail, "/nonexistent/dir"},
		{[]string{"check-nixpkgs", "pkgs"}, exitUsage, "PACKAGES_DIR and at least one MANIFEST_DIR, or --nixpkgs DIR"},
		{[]string{"check-nixpkgs", "--nixpkgs", "/nonexistent/nixpkgs"}, exitUsage, "--nixpkgs /nonexistent/nixpkgs: no lib/default.nix there"},
		{[]string{"check-nixpkgs", "--dry-run", "pkgs", "m"}, exitUsage, "--dry-run goes with --fix"},
		{[]string{"check-nixpkgs", "--remove-vendored", "pkgs", "m"}, exitUsage, "--remove-vendored goes with --fix"},
		{[]string{"check-nixpkgs", "--fix", "--remove-vendored", "--eval-only", "pkgs", "m"}, exitUsage, "--remove-vendored needs the archives"},
		{[]string{"check-nixpkgs", "--fix", "--json", "pkgs", "m"}, exitUsage, "--fix prints a diff"},
		{[]string{"check-nixpkgs", "--redist", "cuda", "pkgs"}, exitUsage, `--redist "cuda": want NAME=DIR`},
		{[]string{"check-nixpkgs", "--redist", "cuda=/nonexistent/m", "pkgs"}, exitUsage, "/nonexistent/m is no directory"},
		{[]string{"print-dependencies"}, exitUsage, "print-dependencies takes one FILE or DIR"},
		{[]string{"print-dependencies", "/nonexistent/detail.json"}, exitFail, "/nonexistent/detail.json"},
	}
	for _, tc := range tests {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.wantErr)
		}
	}
	code, stdout, _ := runCLI("--version")
	if code != exitOK || !strings.HasPrefix(stdout, prog+" ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// manifestJSON is a small valid manifest for version v.
func manifestJSON(v string) string {
	return fmt.Sprintf(`{"release_date": "2025-01-01", "libx": {"name": "X", "license": "L", "version": "%s",
	  "linux-x86_64": {"relative_path": "libx/libx-%s.tar.xz", "sha256": "%s", "md5": "%s", "size": "1"}}}`,
		v, v, strings.Repeat("a", 64), strings.Repeat("b", 32))
}

// redistServer serves an index page and manifests like NVIDIA's redist
// directory, with some broken ones, and counts concurrent requests.
type redistServer struct {
	*httptest.Server
	inFlight, maxInFlight atomic.Int32
	mu                    sync.Mutex
	requested             []string
	// overlap, when set, is closed once two requests are in flight; each
	// manifest request waits for it, so parallel downloads are seen to
	// overlap however slow the machine (awaitOverlap).
	overlap     chan struct{}
	overlapOnce sync.Once
}

// hangGuard bounds a wait that only a broken program would not end: the
// test fails then, it does not measure speed.
const hangGuard = time.Minute

// awaitOverlap makes each manifest request wait until a second request is
// in flight (or hangGuard passes, when downloads run one at a time).
func (s *redistServer) awaitOverlap() *redistServer {
	s.overlap = make(chan struct{})
	return s
}

func newRedistServer(t *testing.T) *redistServer {
	s := &redistServer{}
	index := `<html><body>
	<a href='redistrib_1.0.0.json'>redistrib_1.0.0.json</a>
	<a href="redistrib_1.1.0.json">1.1.0</a>
	<a href='redistrib_2.0.0.1.json'>2.0.0.1</a>
	<a href='redistrib_3.0.0.json'>3.0.0 (404)</a>
	<a href='redistrib_4.0.0.json'>4.0.0 (truncated)</a>
	<a href='redistrib_5.0.0.json'>5.0.0 (not a manifest)</a>
	<a href='feature_1.0.0.json'>not a manifest link</a>
	<a href='redistrib_latest.json'>no version</a>
	</body></html>`
	mux := http.NewServeMux()
	mux.HandleFunc("/redist/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requested = append(s.requested, r.URL.Path)
		s.mu.Unlock()
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		s.countInFlight(n)
		name := strings.TrimPrefix(r.URL.Path, "/redist/")
		if name != "" {
			s.waitForOverlap(n)
		}
		serveRedist(w, r, name, index)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// countInFlight raises maxInFlight to n.
func (s *redistServer) countInFlight(n int32) {
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			return
		}
	}
}

// waitForOverlap, with awaitOverlap set, holds a request until a second
// one is in flight (n is this one's count).
func (s *redistServer) waitForOverlap(n int32) {
	if s.overlap == nil {
		return
	}
	if n >= 2 {
		s.overlapOnce.Do(func() { close(s.overlap) })
	}
	select {
	case <-s.overlap:
	case <-time.After(hangGuard):
	}
}

// serveRedist answers for NVIDIA's redist directory: the index page, good
// manifests, a truncated one, one that is not a manifest, and 404s.
func serveRedist(w http.ResponseWriter, r *http.Request, name, index string) {
	switch name {
	case "":
		fmt.Fprint(w, index)
	case "redistrib_1.0.0.json", "redistrib_1.1.0.json", "redistrib_2.0.0.1.json":
		v := strings.TrimSuffix(strings.TrimPrefix(name, "redistrib_"), ".json")
		fmt.Fprint(w, manifestJSON(v))
	case "redistrib_4.0.0.json":
		body := manifestJSON("4.0.0")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		fmt.Fprint(w, body[:len(body)/2]) // the connection closes early
	case "redistrib_5.0.0.json":
		fmt.Fprint(w, `{"hello": "world"}`)
	default:
		http.NotFound(w, r)
	}
}

func TestDownloadManifests(t *testing.T) {
	srv := newRedistServer(t)
	url := srv.URL + "/redist/"
	tests := []struct {
		name      string
		args      []string
		wantFiles []string
		wantCode  int
		wantErr   []string
	}{
		{
			name: "exact version", args: []string{"--version", "1.1.0"},
			wantFiles: []string{"redistrib_1.1.0.json"}, wantCode: exitOK,
		},
		{
			name: "range with a 4-component version", args: []string{"--min-version", "1.1.0", "--max-version", "2.0.0.1"},
			wantFiles: []string{"redistrib_1.1.0.json", "redistrib_2.0.0.1.json"}, wantCode: exitOK,
		},
		{
			name: "everything: the good ones are written, the broken ones named", args: []string{"--no-parallel"},
			wantFiles: []string{"redistrib_1.0.0.json", "redistrib_1.1.0.json", "redistrib_2.0.0.1.json"}, wantCode: exitFail,
			wantErr: []string{"3 of 6 manifests failed: 1 HTTP 404 (GET", `class="HTTP 404" count=1 versions=3.0.0`, "redistrib_3.0.0.json: 404",
				`class="body cut short" count=1 versions=4.0.0`, "redistrib_4.0.0.json: body: unexpected EOF", `class="not a manifest" count=1 versions=5.0.0`, `redistrib_5.0.0.json: not written: manifest`, `unknown top-level key "hello"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := downloadDir(t)
			args := append(append([]string{"download-manifests"}, tc.args...), url, dir)
			code, stdout, stderr := runCLI(args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, stderr)
			}
			for _, e := range tc.wantErr {
				if !strings.Contains(stderr, e) {
					t.Errorf("stderr lacks %q:\n%s", e, stderr)
				}
			}
			checkDownloadDir(t, dir, tc.wantFiles)
			if len(strings.Fields(stdout)) != len(tc.wantFiles) {
				t.Errorf("stdout lists %q, want %d files", stdout, len(tc.wantFiles))
			}
		})
	}
}

// downloadDir is a directory where a feature file and an old manifest
// (4.0.0, which the server breaks) are already.
func downloadDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "feature_1.0.0.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redistrib_4.0.0.json"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkDownloadDir checks that the directory of downloadDir has exactly
// wantFiles as new manifests, with what the server served, no temporary
// file, and its old files untouched.
func checkDownloadDir(t *testing.T, dir string, wantFiles []string) {
	t.Helper()
	var got []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "redistrib_") && e.Name() != "redistrib_4.0.0.json" {
			got = append(got, e.Name())
		}
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff(wantFiles, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if old, _ := os.ReadFile(filepath.Join(dir, "redistrib_4.0.0.json")); string(old) != "old" {
		t.Errorf("a failed download replaced the existing file: %q", old)
	}
	if feat, _ := os.ReadFile(filepath.Join(dir, "feature_1.0.0.json")); string(feat) != "{}\n" {
		t.Errorf("feature file touched: %q", feat)
	}
	for _, f := range wantFiles {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		v := strings.TrimSuffix(strings.TrimPrefix(f, "redistrib_"), ".json")
		if string(data) != manifestJSON(v) {
			t.Errorf("%s content differs from what was served", f)
		}
	}
}

func TestDownloadInParallel(t *testing.T) {
	srv := newRedistServer(t).awaitOverlap()
	dir := t.TempDir()
	code, _, stderr := runCLI("download-manifests", "--max-version", "2.0.0.1", srv.URL+"/redist/", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m := srv.maxInFlight.Load(); m < 2 {
		t.Errorf("at most %d request at once (the server waited %v for a second): downloads did not run in parallel", m, hangGuard)
	}
	srv2 := newRedistServer(t)
	code, _, stderr = runCLI("download-manifests", "--no-parallel", "--max-version", "2.0.0.1", srv2.URL+"/redist/", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m := srv2.maxInFlight.Load(); m != 1 {
		t.Errorf("--no-parallel: %d requests at once", m)
	}
}

func TestDownloadIndexErrors(t *testing.T) {
	srv := newRedistServer(t)
	code, _, stderr := runCLI("download-manifests", srv.URL+"/elsewhere/", t.TempDir())
	if code != exitFail || !strings.Contains(stderr, "404") {
		t.Errorf("missing index page: exit %d, %q", code, stderr)
	}
}

func compileSchema(t *testing.T, args ...string) *jsonschema.Schema {
	t.Helper()
	code, stdout, stderr := runCLI(args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return s
}

func validateFile(t *testing.T, s *jsonschema.Schema, path string) error {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestSchemasValidateRealFiles validates NVIDIA's manifests, upstream's
// feature and index files, and our own outputs against the schemas, and
// checks that the schemas reject broken documents.
func TestSchemasValidateRealFiles(t *testing.T) {
	data, manifests := testenv.TestData(t), testenv.Manifests(t)
	golden := filepath.Join("..", "..", "tests", "golden", "sample")
	cases := []struct {
		schema []string
		globs  []string
		min    int
	}{
		{[]string{"print-manifest-schema"}, []string{filepath.Join(manifests, "*", "redistrib_*.json"), filepath.Join("..", "..", "sample", "redistrib_*.json")}, 24},
		{[]string{"print-feature-schema"}, []string{filepath.Join(data, "nvidia", "*", "feature_*.json"), filepath.Join(golden, "*", "feature_*.json")}, 10},
		{[]string{"print-feature-schema", "--format", "index"}, []string{filepath.Join(data, "index", "package-info.json"), filepath.Join(golden, "*", "index.json"), filepath.Join(golden, "index.json")}, 4},
		{[]string{"print-feature-schema", "--format", "detail"}, []string{filepath.Join(golden, "*", "detail.json")}, 2},
		{[]string{"print-feature-schema", "--format", "buildredist"}, []string{filepath.Join(golden, "*", "buildRedist.json")}, 2},
	}
	for _, c := range cases {
		s := compileSchema(t, c.schema...)
		n := 0
		for _, g := range c.globs {
			files, _ := filepath.Glob(g)
			for _, f := range files {
				n++
				if err := validateFile(t, s, f); err != nil {
					t.Errorf("%v: %s: %v", c.schema, f, err)
				}
			}
		}
		if n < c.min {
			t.Errorf("%v: validated %d files, want at least %d", c.schema, n, c.min)
		}
	}
	// And the schemas can fail.
	bad := map[string][]string{
		`{"p": {"version": "1", "linux-x86_64": {"relative_path": "x", "sha256": "nothex"}}}`:                                                                                           {"print-manifest-schema"},
		`{"p": {"version": "1", "linux-mips": {"relative_path": "x", "sha256": "` + strings.Repeat("a", 64) + `"}}}`:                                                                    {"print-manifest-schema"},
		`{"p": {"linux-x86_64": {"outputs": {"bin": true}}}}`:                                                                                                                           {"print-feature-schema"},
		`{"libx": {"outputs": ["out"], "outputsByPlatform": {}, "nixExpression": "[ ]", "includeRemoveStubsFromRunpathHook": "yes", "allowFHSReferences": false, "fhsReferences": []}}`: {"print-feature-schema", "--format", "buildredist"},
		`[{"package": "p", "platform": "linux-x86_64", "variant": "None", "needs": [{"soname": 3, "providers": []}], "unresolved": []}]`:                                                {"print-feature-schema", "--format", "dependencies"},
		`{"level": "notice", "kind": "x", "message": "m"}`:                                                                                                                              {"print-feature-schema", "--format", "finding"},
		`{"r": {"1": {"p": {"releaseInfo": {"version": "1"}, "packages": {"linux-x86_64": {"None": {"feature": {"outputs": ["lib"]}, "narHash": "sha256-x", "sha256": "x"}}}}}}}`:       {"print-feature-schema", "--format", "index"},
	}
	for doc, args := range bad {
		s := compileSchema(t, args...)
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("%v accepted %s", args, doc)
		}
	}
}

// TestDetectOutputMatchesSchema runs detect on a real tree and validates.
func TestDetectOutputMatchesSchema(t *testing.T) {
	s := compileSchema(t, "print-feature-schema", "--format", "detect")
	code, stdout, stderr := runCLI("detect", filepath.Join("..", "..", "lib"))
	if code != exitOK {
		t.Fatalf("detect: %d %s", code, stderr)
	}
	var doc any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err := s.Validate(v); err != nil {
		t.Errorf("detect output: %v", err)
	}
}

// TestDownloadIncomparableVersion: a listed version whose numbers
// overflow is reported (exit 1, named), the others still downloaded.
func TestDownloadIncomparableVersion(t *testing.T) {
	const huge = "99999999999999999999.0.0"
	mux := http.NewServeMux()
	mux.HandleFunc("/redist/", func(w http.ResponseWriter, r *http.Request) {
		switch name := strings.TrimPrefix(r.URL.Path, "/redist/"); name {
		case "":
			fmt.Fprintf(w, `<a href="redistrib_1.0.0.json">a</a> <a href="redistrib_%s.json">b</a>`, huge)
		case "redistrib_1.0.0.json":
			fmt.Fprint(w, manifestJSON("1.0.0"))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	code, stdout, stderr := runCLI("download-manifests", "--min-version", "0.1.0", srv.URL+"/redist/", dir)
	if code != exitFail || !strings.Contains(stderr, huge) || !strings.Contains(stderr, "cannot be compared") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d naming %s", code, stderr, exitFail, huge)
	}
	if !strings.Contains(stdout, "redistrib_1.0.0.json") {
		t.Errorf("stdout %q: the comparable version was not downloaded", stdout)
	}
}

// narHashFixture is a tree of one header and a function writing an
// attributes file that gives a NAR hash for a path, as Nix writes one for
// exportReferencesGraph.
func narHashFixture(t *testing.T) (tree string, attrsFor func(path string) string) {
	t.Helper()
	dir := t.TempDir()
	tree = filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "include", "a.h"), []byte("int a;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tree, func(path string) string {
		p := filepath.Join(dir, "attrs-"+filepath.Base(path)+".json")
		doc := fmt.Sprintf(`{"exportReferencesGraph": {"tree": [%q]}, "tree": [{"path": %q, "narHash": %q}]}`, path, path, givenNarHash)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// givenNarHash is not the fixture tree's hash: only the attributes can
// have said it. givenNarHashSRI is `nix hash to-sri` of it.
const (
	givenNarHash    = "sha256:0r2dybkhzq92icbdrr8q7bc9b53pch8646q0snmqrn4hd2pz96v4"
	givenNarHashSRI = "sha256-ZJv0r2iQ2Iyr1QAbYhBkd5SV2DoY5dwWiyLhD+fyTWQ="
)

// TestDetectNarHashFromNix: with --nar-hash-from-nix, detect records the
// hash the attributes file gives for DIR and does not compute its own;
// without it, detect hashes the tree. A file that lists another path,
// and --attrs without the flag, are errors.
func TestDetectNarHashFromNix(t *testing.T) {
	tree, attrsFor := narHashFixture(t)
	for _, c := range []struct {
		args   []string
		code   int
		want   string // in stdout (exit 0) or stderr
		unwant string // not in stdout
	}{
		{[]string{"--nar-hash-from-nix", "--attrs", attrsFor(tree)}, exitOK, `"narHash": "` + givenNarHashSRI + `"`, ""},
		{nil, exitOK, `"narHash": "sha256-`, givenNarHashSRI},
		{[]string{"--nar-hash-from-nix", "--attrs", attrsFor(filepath.Join(filepath.Dir(tree), "other"))}, exitFail, "no NAR hash of " + tree, ""},
		{[]string{"--attrs", attrsFor(tree)}, exitUsage, "--nar-hash-from-nix", ""},
	} {
		code, stdout, stderr := runCLI(append(append([]string{"detect"}, c.args...), tree)...)
		out := stderr
		if c.code == exitOK {
			out = stdout
		}
		if code != c.code || !strings.Contains(out, c.want) || (c.unwant != "" && strings.Contains(stdout, c.unwant)) {
			t.Errorf("detect %v: exit %d (want %d), want %q:\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
}
