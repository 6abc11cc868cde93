package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/hostilejson"
)

// TestHostileJSONEveryReader feeds each hostile document to aggregate and
// merge-index in each role they read JSON in, and wants exit 1 with the
// refusal named and nothing written.
func TestHostileJSONEveryReader(t *testing.T) {
	hostilejson.CheckEveryReader(t, jsonReaders, runArgs)
}

// jsonReaders are the command lines that read doc, by role.
func jsonReaders(t *testing.T, doc string) []hostilejson.Reader {
	write := func(name, content string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	attrs := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return write(".attrs.json", string(data))
	}
	hostile := write("hostile.json", doc)
	manifest, err := filepath.Abs(filepath.Join("..", "..", "sample", "redistrib_1.0.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	return []hostilejson.Reader{
		{Role: "aggregate: the manifest", Args: func(out string) []string {
			return []string{"aggregate", "--attrs", attrs(map[string]any{
				"outputs": map[string]string{"out": filepath.Join(out, "agg")}, "redistName": "cuda", "version": "1.0.0",
				"manifest": hostile, "archives": []any{}})}
		}},
		{Role: "aggregate: a detect result", Args: func(out string) []string {
			return []string{"aggregate", "--attrs", attrs(map[string]any{
				"outputs": map[string]string{"out": filepath.Join(out, "agg")}, "redistName": "sample", "version": "1.0.0",
				"manifest": manifest,
				"releases": map[string]any{"cuda_demo_rt": map[string]string{"name": "N", "license": "L", "version": "1.0.42"}},
				"archives": []any{map[string]string{"package": "cuda_demo_rt", "platform": "linux-x86_64", "variant": "None",
					"relativePath": "cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz",
					"sha256":       "1a233b3f57a8250a33b401b28532141556e3b5cac6fb9a0f9faaf6d9a8aaf580", "features": hostile}}})}
		}},
		{Role: "aggregate: the structured attributes", Args: func(out string) []string {
			return []string{"aggregate", "--attrs", hostile}
		}},
		{Role: "merge-index: an index", Args: func(out string) []string {
			return []string{"merge-index", "--out", filepath.Join(out, "index.json"), filepath.Join(golden, "1.0.0", "index.json"), hostile}
		}},
		{Role: "merge-index: the structured attributes", Args: func(out string) []string {
			return []string{"merge-index", "--attrs", hostile}
		}},
	}
}
