package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/hostilejson"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// TestHostileJSONEveryReader feeds each hostile document to every command
// that reads JSON, in each role it reads it in, and wants exit 1 with the
// refusal named and nothing written.
func TestHostileJSONEveryReader(t *testing.T) {
	hostilejson.CheckEveryReader(t, jsonReaders, runCLI)
}

func jsonReaders(t *testing.T, doc string) []hostilejson.Reader {
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
	return []hostilejson.Reader{
		{Role: "download-manifests: a manifest from the server", Args: func(out string) []string {
			return []string{"download-manifests", srv.URL + "/", out}
		}},
		{Role: "process-manifests: a manifest", Args: func(out string) []string {
			return []string{"process-manifests", "--index", filepath.Join(out, "index.json"), "--detector-program", program, "--aggregate-program", program, "--nix-lib", nixLib, "http://127.0.0.1:1/", manifestDir}
		}},
		{Role: "check-nixpkgs: a manifest", Args: func(out string) []string {
			return []string{"check-nixpkgs", "--eval-only", "--nix-lib", nixLib, "--url", "http://127.0.0.1:1/", out, manifestDir}
		}},
		{Role: "report: an index", Args: func(out string) []string {
			return []string{"report", "--out", out, aggregateWith("index.json")}
		}},
		{Role: "report: a detail.json", Args: func(out string) []string {
			return []string{"report", "--out", out, aggregateWith("detail.json")}
		}},
		{Role: "diff: an index", Args: func(out string) []string {
			return []string{"diff", filepath.Join(sample, "1.0.0"), aggregateWith("index.json")}
		}},
		{Role: "diff: a detail.json", Args: func(out string) []string {
			return []string{"diff", aggregateWith("detail.json"), filepath.Join(sample, "1.0.0")}
		}},
		{Role: "print-buildredist: a buildRedist.json", Args: func(out string) []string {
			return []string{"print-buildredist", hostile}
		}},
		{Role: "print-dependencies: a detail.json", Args: func(out string) []string {
			return []string{"print-dependencies", hostile}
		}},
	}
}
