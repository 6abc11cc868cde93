package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// hostileJSON are documents no reader may decode: nested far past
// jsoncheck.MaxDepth (arrays, and objects whose every level names a key,
// which used to cost memory quadratic in the depth), and one that repeats
// a key.
var hostileJSON = map[string]struct{ doc, want string }{
	"deep arrays":  {`{"a":` + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + `}`, "nested too deeply"},
	"deep objects": {strings.Repeat(`{"k":`, 200_000) + "1" + strings.Repeat("}", 200_000), "nested too deeply"},
	"repeated key": {`{"a":1,"a":2}`, `duplicate key "a"`},
}

// TestHostileJSONEveryReader feeds each hostile document to every command
// that reads JSON, in each role it reads it in, and wants exit 1 with the
// refusal named and nothing written.
func TestHostileJSONEveryReader(t *testing.T) {
	for name, h := range hostileJSON {
		t.Run(name, func(t *testing.T) {
			for _, r := range jsonReaders(t, h.doc) {
				dir := t.TempDir()
				args := r.args(dir)
				code, stdout, stderr := runCLI(args...)
				if code != exitFail || !strings.Contains(stderr, h.want) {
					t.Errorf("%s: %v: exit %d, want %d with %q in stderr:\n%.600s", r.role, args[0], code, exitFail, h.want, stderr)
				}
				if stdout != "" {
					t.Errorf("%s: stdout %.200q, want nothing", r.role, stdout)
				}
				if left, _ := os.ReadDir(dir); len(left) > 0 {
					t.Errorf("%s: %d files written to the output (%s...)", r.role, len(left), left[0].Name())
				}
			}
		})
	}
}

// jsonReader is one command reading a hostile file in one role; args
// gets an empty directory where nothing may appear.
type jsonReader struct {
	role string
	args func(out string) []string
}

func jsonReaders(t *testing.T, doc string) []jsonReader {
	sample := filepath.Join("..", "..", "tests", "golden", "sample")
	write := func(name, content string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// An aggregate directory with one hostile file and the sample's other.
	aggregateWith := func(file string) string {
		dir := t.TempDir()
		for _, f := range []string{"index.json", "detail.json", "buildRedist.json", "feature_2.0.0.json"} {
			data, err := os.ReadFile(filepath.Join(sample, "2.0.0", f))
			if err != nil {
				t.Fatal(err)
			}
			if f == file {
				data = []byte(doc)
			}
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	hostile := write("hostile.json", doc)
	// The Nix commands refuse the manifest before they build anything: a
	// stand-in static ELF file is enough for the builders.
	program := write("program", string(testelf.Build(testelf.Spec{})))
	nixLib := filepath.Join("..", "..", "nix")
	manifestDir := filepath.Dir(write("redistrib_1.0.0.json", doc))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<a href="redistrib_1.0.0.json">1.0.0</a>`)
			return
		}
		fmt.Fprint(w, doc)
	}))
	t.Cleanup(srv.Close)
	return []jsonReader{
		{"download-manifests: a manifest from the server", func(out string) []string {
			return []string{"download-manifests", srv.URL + "/", out}
		}},
		{"process-manifests: a manifest", func(out string) []string {
			return []string{"process-manifests", "--index", filepath.Join(out, "index.json"), "--detector-program", program, "--aggregate-program", program, "--nix-lib", nixLib, "http://127.0.0.1:1/", manifestDir}
		}},
		{"check-nixpkgs: a manifest", func(out string) []string {
			return []string{"check-nixpkgs", "--eval-only", "--nix-lib", nixLib, "--url", "http://127.0.0.1:1/", out, manifestDir}
		}},
		{"report: an index", func(out string) []string {
			return []string{"report", "--out", out, aggregateWith("index.json")}
		}},
		{"report: a detail.json", func(out string) []string {
			return []string{"report", "--out", out, aggregateWith("detail.json")}
		}},
		{"diff: an index", func(out string) []string {
			return []string{"diff", filepath.Join(sample, "1.0.0"), aggregateWith("index.json")}
		}},
		{"diff: a detail.json", func(out string) []string {
			return []string{"diff", aggregateWith("detail.json"), filepath.Join(sample, "1.0.0")}
		}},
		{"print-buildredist: a buildRedist.json", func(out string) []string {
			return []string{"print-buildredist", hostile}
		}},
		{"print-dependencies: a detail.json", func(out string) []string {
			return []string{"print-dependencies", hostile}
		}},
	}
}
