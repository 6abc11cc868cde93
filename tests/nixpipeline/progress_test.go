package nixpipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// screen replays a terminal's output (text, \r, \n and ESC[K, the
// sequences the status line uses) and returns the lines left on screen.
func screen(out string) []string {
	lines := []string{""}
	col := 0
	for i := 0; i < len(out); i++ {
		cur := &lines[len(lines)-1]
		switch {
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, "")
			col = 0
		case strings.HasPrefix(out[i:], "\033[K"):
			*cur = (*cur)[:col]
			i += 2
		default:
			if col < len(*cur) {
				*cur = (*cur)[:col] + string(out[i]) + (*cur)[col+1:]
			} else {
				*cur += string(out[i])
			}
			col++
		}
	}
	return lines
}

// TestProgressOnTerminal runs process-manifests under a pseudo-terminal
// (script(1)) on the sample with one new archive: the status line counts
// the archives unpacked and detected from Nix's structured log, Nix's own
// lines and its JSON do not show, and the result stands on its own line.
func TestProgressOnTerminal(t *testing.T) {
	requireNix(t)
	if _, err := exec.LookPath("script"); err != nil {
		testenv.Unavailable(t, "script(1) is not installed (bsdutils)", "CRFF_REQUIRE_NIX")
	}
	dir := copySample(t)
	useNewSourceArchive(t, dir, "pty", true)
	command := strings.Join([]string{programBinary(t), "process-manifests", "--nix-option", "substituters=",
		"--redist-name", "sample", "--version", "2.0.0", "--cleanup", "file://" + dir, dir}, " ")
	cmd := exec.Command("script", "-qec", command, "/dev/null")
	cmd.Dir = repoRoot()
	raw, err := cmd.Output()
	out := string(raw)
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	if !strings.Contains(out, "archives: unpacked 1/1, detected 1/1") {
		t.Errorf("no complete status line in %q", out)
	}
	if !strings.Contains(out, "archives: unpacked 0/1") {
		t.Errorf("no status line before the builds in %q", out)
	}
	for _, noise := range []string{"@nix", "building '", "will be built"} {
		if strings.Contains(out, noise) {
			t.Errorf("%q shows on the terminal: %q", noise, out)
		}
	}
	lines := screen(strings.ReplaceAll(out, "\r\n", "\n"))
	want := filepath.Join(dir, "feature_2.0.0.json")
	found := false
	for _, l := range lines {
		if l == want {
			found = true
		}
	}
	if !found {
		t.Errorf("screen lacks the line %q:\n%s", want, strings.Join(lines, "\n"))
	}
}

// TestProgressLines runs process-manifests with stderr in a file on the
// sample with one new archive: one line per event (the archive unpacked
// and detected, with their counts, the aggregate built), no status line,
// no Nix JSON; with --quiet and another new archive, none of it. The
// result is on stdout either way.
func TestProgressLines(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// newArchive makes demo_src's source archive one no run built yet.
	newArchive := func(name string) { useNewSourceArchive(t, dir, name, true) }
	run := func(extra ...string) (stdout, stderr string) {
		args := append([]string{"process-manifests", "--nix-option", "substituters=",
			"--redist-name", "sample", "--version", "2.0.0"}, extra...)
		cmd := exec.Command(programBinary(t), append(args, "file://"+dir, dir)...)
		cmd.Dir = repoRoot()
		errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer errFile.Close()
		cmd.Stderr = errFile
		out, err := cmd.Output()
		logged, _ := os.ReadFile(errFile.Name())
		if err != nil {
			t.Fatalf("%v\n%s", err, logged)
		}
		return string(out), string(logged)
	}
	result := filepath.Join(dir, "feature_2.0.0.json") + "\n" + filepath.Join(dir, "aggregate_2.0.0") + "\n"

	newArchive("lines")
	stdout, stderr := run()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	// The archive's derivations are named after its file (relative_path).
	for _, want := range []string{"unpacked lines (1/1)", "detected lines (1/1)", "built sample-2.0.0-features"} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("stderr lacks the line %q:\n%s", want, stderr)
		}
	}
	for _, noise := range []string{"@nix", "\r", "\033[K", "building '", "will be built"} {
		if strings.Contains(stderr, noise) {
			t.Errorf("%q in the event lines: %q", noise, stderr)
		}
	}
	if stdout != result {
		t.Errorf("stdout %q, want %q", stdout, result)
	}

	newArchive("quiet")
	stdout, stderr = run("--quiet")
	if stderr != "" {
		t.Errorf("--quiet wrote to stderr: %q", stderr)
	}
	if stdout != result {
		t.Errorf("--quiet: stdout %q, want %q", stdout, result)
	}

	// A reader of stderr that went away (`2>&1 | head -1` once head is
	// done, a log shipper that died) does not end the run: the lines are
	// lost, the result is written. Go kills a program with SIGPIPE when a
	// write to fd 2 fails so.
	newArchive("gone")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(programBinary(t), "process-manifests", "--nix-option", "substituters=",
		"--redist-name", "sample", "--version", "2.0.0", "file://"+dir, dir)
	cmd.Dir = repoRoot()
	cmd.Stderr = w
	out, err := cmd.Output()
	if err != nil || string(out) != result {
		t.Errorf("with stderr a pipe nobody reads: %v, stdout %q, want %q", err, out, result)
	}
}
