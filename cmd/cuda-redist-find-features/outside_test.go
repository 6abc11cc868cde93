package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesSayWhatToDo: each case of issue 32's messages, without Nix
// (the runner comes after the arguments).
func TestMessagesSayWhatToDo(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	if err := os.Mkdir("archives", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("manifests", 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	detail := filepath.Join(tmp, "detail.json")
	if err := os.WriteFile(detail, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		code   int
		stream string // "stdout" or "stderr"
		want   string
	}{
		// A URL without a scheme: refused at once with the file:// form...
		{[]string{"process-manifests", "nowhere", "manifests"}, exitUsage, "stderr",
			`URL "nowhere" has no scheme and is no directory here: give https://... or, for a local directory, file://` + filepath.Join(tmp, "nowhere")},
		{[]string{"check-nixpkgs", "--url", "cuda=nowhere", tmp, "manifests"}, exitUsage, "stderr",
			`--url "nowhere" has no scheme and is no directory here`},
		{[]string{"download-manifests", "example.org/redist", "manifests"}, exitUsage, "stderr",
			`URL "example.org/redist" has no scheme`},
		// ... or taken as the directory it names (the run then stops at
		// the empty manifest directory, past the URL).
		{[]string{"process-manifests", "archives", "manifests"}, exitFail, "stderr",
			"no redistrib_<version>.json in manifests: pass the directory holding NVIDIA's manifests"},
		{[]string{"detect", file}, exitFail, "stderr", "DIR " + file + " is no directory"},
		{[]string{"print-dependencies", detail}, 0, "stdout", "no library of this release needs a soname of another package (nothing to show)\n"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		got := stderr
		if c.stream == "stdout" {
			got = stdout
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %s %q", c.args, code, stdout, stderr, c.code, c.stream, c.want)
		}
	}
}
