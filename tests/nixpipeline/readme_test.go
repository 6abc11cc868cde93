package nixpipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeExample is one "$ command" of a console block in the README and
// the output lines after it.
type readmeExample struct {
	line    int
	command string // continuation lines joined
	output  string
}

func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
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

// TestREADMEExamples runs the README's console examples of this program
// and compares their output, so the README cannot drift from it. The
// aggregate results (result-sample-<version>) are the golden files the
// other tests prove equal to the Nix builds. Examples that cannot run here
// are listed with the reason; a new example must be either.
func TestREADMEExamples(t *testing.T) {
	requireNix(t)
	notRun := map[string]string{
		"CGO_ENABLED=0 go build -o crff ./cmd/cuda-redist-find-features": "the build (the test builds the binary itself)",
		"cp -r sample /tmp/demo":        "setup, done by the test",
		"cp -r sample /tmp/demo/sample": "setup of the check-nixpkgs session",
		"./crff check-nixpkgs --url file:///tmp/demo/sample pkgs /tmp/demo/sample": "its package files (pkgs) are not in the README; check-nixpkgs is tested in check_*_test.go",
		"echo $?": "part of the check-nixpkgs session",
		"./crff check-nixpkgs --json ... | sed -n 2p":                                     "part of the check-nixpkgs session",
		"P=/tmp/nixpkgs-full/pkgs/development/cuda-modules":                               "setup of the run on the real Nixpkgs files",
		"./crff check-nixpkgs --eval-only --hints=false $P/packages $P/_cuda/manifests/*": "the real Nixpkgs package files are not in the repository; their shapes are tested in check_*_test.go",
	}
	ran := 0
	for _, ex := range readmeExamples(t) {
		if reason, ok := notRun[ex.command]; ok {
			t.Logf("README.md:%d not run: %s", ex.line, reason)
			continue
		}
		if strings.Contains(ex.command, "# online") {
			t.Logf("README.md:%d not run: online", ex.line)
			continue
		}
		fields := strings.Fields(ex.command)
		if fields[0] != "cuda-redist-find-features" && fields[0] != "./crff" {
			t.Errorf("README.md:%d: %q is neither run nor listed as not run", ex.line, ex.command)
			continue
		}
		args := fields[1:]
		demo := ""
		for i, a := range args {
			if v, ok := strings.CutPrefix(a, "result-sample-"); ok {
				args[i] = filepath.Join(repoRoot(), "tests", "golden", "sample", v)
			}
			if strings.Contains(a, "/tmp/demo") {
				if demo == "" {
					demo = copySample(t)
				}
				args[i] = strings.ReplaceAll(a, "/tmp/demo", demo)
			}
		}
		code, stdout, stderr := runDetector(t, args...)
		want := ex.output
		if demo != "" {
			want = strings.ReplaceAll(want, "/tmp/demo", demo)
		}
		if code != 0 || stdout != want {
			t.Errorf("README.md:%d: %s: exit %d\nstdout:\n%s\nREADME says:\n%s\nstderr:\n%s", ex.line, ex.command, code, stdout, want, stderr)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d README examples, want at least 3 (print-buildredist, print-dependencies, process-manifests)", ran)
	}
}
