package nixpipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readmeExample is one "$ command" of a console block of a Markdown file
// (the README or a page of docs/) and the output lines after it.
type readmeExample struct {
	line    int
	command string // continuation lines joined
	output  string
}

// readmeExamples reads the console examples of a Markdown file of the
// repository.
func readmeExamples(t *testing.T, file string) []readmeExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), file))
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeExample
	inBlock := false
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "```console":
			inBlock = true
		case strings.HasPrefix(l, "```"):
			inBlock = false
		case inBlock && strings.HasPrefix(l, "$ "):
			ex := readmeExample{line: i + 1, command: strings.TrimPrefix(l, "$ ")}
			for strings.HasSuffix(ex.command, `\`) && i+1 < len(lines) {
				i++
				ex.command = strings.TrimSuffix(ex.command, `\`) + strings.TrimSpace(lines[i])
			}
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") && !strings.HasPrefix(lines[i+1], "```") {
				i++
				ex.output += lines[i] + "\n"
			}
			out = append(out, ex)
		}
	}
	return out
}

// TestREADMEExamples runs the console examples of this program in the
// README and in the guides that took over its sections (docs/cli-guide.md:
// the process-manifests session; docs/check-nixpkgs.md: print-buildredist,
// check-nixpkgs and print-dependencies) and compares their output, so the
// docs cannot drift from it. The aggregate results (result-sample-<version>)
// are the golden files the other tests prove equal to the Nix builds.
// Examples that cannot run here are listed with the reason; a new example
// must be either.
func TestREADMEExamples(t *testing.T) {
	requireNix(t)
	notRun := map[string]string{
		"CGO_ENABLED=0 go build -o crff ./cmd/cuda-redist-find-features": "the build (the test builds the binary itself)",
		"cp -r sample /tmp/demo":        "setup, done by the test",
		"cp -r sample /tmp/demo/sample": "setup of the check-nixpkgs session, done by the test",
		"echo $?":                       "the exit code of the command before it, checked with that command",
	}
	ran := 0
	for _, file := range []string{"README.md", "docs/cli-guide.md", "docs/check-nixpkgs.md"} {
		ran += runExamples(t, file, notRun)
	}
	if ran < 5 {
		t.Errorf("ran %d examples of the README and its guides, want at least 5 (print-buildredist, print-dependencies, process-manifests, check-nixpkgs and its --json)", ran)
	}
}

// TestDocsExamples runs the console examples of docs/nixpkgs.md (the
// --fix session) the same way.
func TestDocsExamples(t *testing.T) {
	requireNix(t)
	notRun := map[string]string{
		"cp -r sample /tmp/demo/sample": "setup of the check-nixpkgs session, done by the test",
		"echo $?":                       "the exit code of the command before it, checked with that command",
	}
	if ran := runExamples(t, "docs/nixpkgs.md", notRun); ran < 1 {
		t.Errorf("ran %d examples of docs/nixpkgs.md, want at least 1 (check-nixpkgs --fix --dry-run)", ran)
	}
}

// runExamples runs the console examples of file that are not in notRun
// and returns how many ran.
func runExamples(t *testing.T, file string, notRun map[string]string) int {
	t.Helper()
	examples := readmeExamples(t, file)
	ran := 0
	var previous []string // the arguments of the last example run
	for i, ex := range examples {
		if reason, ok := notRun[ex.command]; ok {
			t.Logf("%s:%d not run: %s", file, ex.line, reason)
			continue
		}
		if strings.Contains(ex.command, "# online") {
			t.Logf("%s:%d not run: online", file, ex.line)
			continue
		}
		fields := strings.Fields(ex.command)
		if fields[0] != "cuda-redist-find-features" && fields[0] != "./crff" {
			t.Errorf("%s:%d: %q is neither run nor listed as not run", file, ex.line, ex.command)
			continue
		}
		args, line, demo := readmeArgs(t, fields[1:], previous)
		previous = args
		code, stdout, stderr := runProgram(t, args...)
		wantCode := 0
		if i+1 < len(examples) && examples[i+1].command == "echo $?" {
			wantCode, _ = strconv.Atoi(strings.TrimSpace(examples[i+1].output))
		}
		if lines := strings.SplitAfter(stdout, "\n"); line > 0 && line <= len(lines) {
			// A pipe into sed: the shell reports sed's exit code.
			stdout, wantCode = lines[line-1], code
		}
		want := ex.output
		if demo != "" {
			want = strings.ReplaceAll(want, "/tmp/demo", demo)
		}
		if code != wantCode || stdout != want {
			t.Errorf("%s:%d: %s: exit %d (want %d)\nstdout:\n%s\n%s says:\n%s\nstderr:\n%s", file, ex.line, ex.command, code, wantCode, stdout, file, want, stderr)
		}
		ran++
	}
	return ran
}

// readmeArgs makes an example's arguments runnable here: result-sample-V
// is the golden result, /tmp/demo a copy of the sample (/tmp/demo/sample
// one named sample, as check-nixpkgs takes the redist from the name),
// and "--json ... | sed -n N" the previous example's arguments with
// --json, of which line N is compared.
func readmeArgs(t *testing.T, args, previous []string) (out []string, line int, demo string) {
	t.Helper()
	if len(args) >= 3 && args[1] == "--json" && args[2] == "..." {
		n, err := strconv.Atoi(strings.TrimSuffix(args[len(args)-1], "p"))
		if err != nil || len(previous) == 0 {
			t.Fatalf("cannot run %q after %q", args, previous)
		}
		return append([]string{previous[0], "--json"}, previous[1:]...), n, ""
	}
	out = append([]string(nil), args...)
	for i, a := range out {
		if v, ok := strings.CutPrefix(a, "result-sample-"); ok {
			out[i] = filepath.Join(repoRoot(), "tests", "golden", "sample", v)
		}
		if strings.Contains(a, "/tmp/demo") {
			if demo == "" && strings.Contains(strings.Join(args, " "), "/tmp/demo/sample") {
				demo = filepath.Dir(sampleAsRedist(t))
			} else if demo == "" {
				demo = copySample(t)
			}
			out[i] = strings.ReplaceAll(a, "/tmp/demo", demo)
		}
	}
	return out, 0, demo
}
