package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileJSON are documents no reader may decode: nested far past
// jsoncheck.MaxDepth, and one that repeats a key (the CLI's readers meet
// the same in its hostilejson_test.go).
var hostileJSON = map[string]struct{ doc, want string }{
	"deep arrays":  {`{"a":` + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + `}`, "nested too deeply"},
	"deep objects": {strings.Repeat(`{"k":`, 200_000) + "1" + strings.Repeat("}", 200_000), "nested too deeply"},
	"repeated key": {`{"a":1,"a":2}`, `duplicate key "a"`},
}

// TestHostileJSONEveryReader feeds each hostile document to aggregate and
// merge-index in each role they read JSON in, and wants exit 1 with the
// refusal named and nothing written.
func TestHostileJSONEveryReader(t *testing.T) {
	for name, h := range hostileJSON {
		t.Run(name, func(t *testing.T) {
			for role, args := range jsonReaders(t, h.doc) {
				dir := t.TempDir()
				code, stdout, stderr := runArgs(args(dir)...)
				if code != 1 || !strings.Contains(stderr, h.want) {
					t.Errorf("%s: exit %d, want 1 with %q in stderr:\n%.600s", role, code, h.want, stderr)
				}
				if stdout != "" {
					t.Errorf("%s: stdout %.200q, want nothing", role, stdout)
				}
				if left, _ := os.ReadDir(dir); len(left) > 0 {
					t.Errorf("%s: %d files written to the output (%s...)", role, len(left), left[0].Name())
				}
			}
		})
	}
}

// jsonReaders are the command lines, by role, that read doc; each gets an
// empty directory where nothing may appear.
func jsonReaders(t *testing.T, doc string) map[string]func(out string) []string {
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
	return map[string]func(out string) []string{
		"aggregate: the manifest": func(out string) []string {
			return []string{"aggregate", "--attrs", attrs(map[string]any{
				"outputs": map[string]string{"out": filepath.Join(out, "agg")}, "redistName": "cuda", "version": "1.0.0",
				"manifest": hostile, "archives": []any{}})}
		},
		"aggregate: a detect result": func(out string) []string {
			return []string{"aggregate", "--attrs", attrs(map[string]any{
				"outputs": map[string]string{"out": filepath.Join(out, "agg")}, "redistName": "sample", "version": "1.0.0",
				"manifest": manifest,
				"releases": map[string]any{"cuda_demo_rt": map[string]string{"name": "N", "license": "L", "version": "1.0.42"}},
				"archives": []any{map[string]string{"package": "cuda_demo_rt", "platform": "linux-x86_64", "variant": "None",
					"relativePath": "cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz",
					"sha256":       "1a233b3f57a8250a33b401b28532141556e3b5cac6fb9a0f9faaf6d9a8aaf580", "features": hostile}}})}
		},
		"aggregate: the structured attributes": func(out string) []string {
			return []string{"aggregate", "--attrs", hostile}
		},
		"merge-index: an index": func(out string) []string {
			return []string{"merge-index", "--out", filepath.Join(out, "index.json"), filepath.Join(golden, "1.0.0", "index.json"), hostile}
		},
		"merge-index: the structured attributes": func(out string) []string {
			return []string{"merge-index", "--attrs", hostile}
		},
	}
}
