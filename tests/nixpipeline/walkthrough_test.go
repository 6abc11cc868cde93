package nixpipeline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWalkthrough runs docs/walkthrough.md, the CUDA bump from a new
// manifest to repaired package files and a report, as a maintainer would:
// every command in order, through the shell, from the repository root,
// with this program on PATH and a scratch directory in place of /tmp/bump.
// Each command's output, stdout and stderr, must be what the page shows, and its exit code the
// "echo $?" after it (0 when there is none), so the page cannot drift from
// the program.
func TestWalkthrough(t *testing.T) {
	requireNix(t)
	bin := programBinary(t)
	scratch := filepath.Join(t.TempDir(), "bump")
	tmp := t.TempDir()
	examples := readmeExamples(t, "docs/walkthrough.md")
	ran := 0
	for i, ex := range examples {
		if ex.command == "echo $?" {
			continue
		}
		wantCode := 0
		if i+1 < len(examples) && examples[i+1].command == "echo $?" {
			wantCode, _ = strconv.Atoi(strings.TrimSpace(examples[i+1].output))
		}
		command := strings.ReplaceAll(ex.command, "/tmp/bump", scratch)
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(),
			"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"TMPDIR="+tmp)
		// stdout and stderr in one stream, as a terminal shows them: the
		// page shows both (the summary and warning lines are stderr's).
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("docs/walkthrough.md:%d: %v", ex.line, err)
		}
		want := strings.ReplaceAll(ex.output, "/tmp/bump", scratch)
		if code != wantCode || stdout.String() != want {
			t.Fatalf("docs/walkthrough.md:%d: %s: exit %d (want %d)\noutput:\n%s\nthe page says:\n%s",
				ex.line, ex.command, code, wantCode, stdout.String(), want)
		}
		ran++
	}
	// The page's steps: set-up (2), process-manifests, diff,
	// print-buildredist, check, fix, re-check, coverage, report; then the
	// lineage: set-up, diff of two manifests, check, fix.
	if ran < 14 {
		t.Errorf("ran %d commands of docs/walkthrough.md, want 14", ran)
	}
	// The bump left what it says: a report, and package files of which
	// the new one was written by --fix.
	for _, f := range []string{"report/report.html", "packages/libdemo_variant.nix", "sample/aggregate_2.0.0/detail.json"} {
		if _, err := os.Stat(filepath.Join(scratch, f)); err != nil {
			t.Errorf("after the walkthrough: %v", err)
		}
	}
}
