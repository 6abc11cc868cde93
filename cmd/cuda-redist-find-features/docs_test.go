package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
)

// TestDocsUpToDate fails when docs/cli.md differs from what the command
// definitions generate: run `go generate ./cmd/cuda-redist-find-features`.
func TestDocsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, got, stderr := runCLI("generate-docs")
	if code != exitOK {
		t.Fatalf("generate-docs: exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale; run go generate ./cmd/cuda-redist-find-features (-committed +generated):\n%s", path, diff)
	}
	for _, c := range commands() {
		if c.hidden {
			if strings.Contains(got, "## "+prog+" "+c.name+"\n") {
				t.Errorf("hidden command %s documented", c.name)
			}
			continue
		}
		if !strings.Contains(got, "## "+prog+" "+c.name+"\n") {
			t.Errorf("%s: no section for %s", path, c.name)
		}
	}
}

// TestCompletion checks the scripts' first lines, and that they call back
// into the hidden __complete command (see TestCompletionOffers).
func TestCompletion(t *testing.T) {
	firstLines := map[string]string{
		"bash": "# bash completion V2 for " + prog,
		"zsh":  "#compdef " + prog,
		"fish": "# fish completion for " + prog,
	}
	for shell, want := range firstLines {
		code, stdout, stderr := runCLI("completion", shell)
		if code != exitOK || !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, "__complete") {
			t.Errorf("completion %s: exit %d, starts %.60q, stderr %q; want it to start with %q and call __complete", shell, code, stdout, stderr, want)
		}
	}
	if code, _, stderr := runCLI("completion", "tcsh"); code != exitUsage {
		t.Errorf("completion tcsh: exit %d, %q", code, stderr)
	}
}

// TestCompletionOffers checks what the completion the scripts call back
// into (the hidden __complete command) offers: every visible command, a
// command's flags, and a flag's values.
func TestCompletionOffers(t *testing.T) {
	_, stdout, _ := runCLI("__complete", "")
	offered := map[string]bool{}
	for _, line := range strings.Split(stdout, "\n") {
		name, _, _ := strings.Cut(line, "\t")
		offered[name] = true
	}
	for _, c := range commands() {
		if offered[c.name] == c.hidden {
			t.Errorf("completion of the command: %s offered %v (hidden %v)", c.name, offered[c.name], c.hidden)
		}
	}
	_, stdout, _ = runCLI("__complete", "download-manifests", "u", "d", "--")
	for _, f := range []string{"--max-version", "--min-version", "--version", "--no-parallel", "--log-level"} {
		if !strings.Contains(stdout, f+"\t") {
			t.Errorf("download-manifests flags: %s not offered in\n%s", f, stdout)
		}
	}
	if strings.Contains(stdout, "--parallel\t") {
		t.Errorf("download-manifests offers the removed --parallel")
	}
	_, stdout, _ = runCLI("__complete", "detect", "--log-level", "")
	if !strings.HasPrefix(stdout, "DEBUG\nINFO\nWARNING\nERROR\nCRITICAL\n") {
		t.Errorf("--log-level values: %q", stdout)
	}
	// A flag with a fixed set of values offers them.
	_, stdout, _ = runCLI("__complete", "print-feature-schema", "--format", "")
	if want := strings.Join(schema.Formats, "\n") + "\n:4\n"; !strings.HasPrefix(stdout, want) {
		t.Errorf("--format values: %q, want %q", stdout, want)
	}
}
