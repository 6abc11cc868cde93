package layout_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// builderProgram is one of the two programs the pipeline's derivations
// run besides the CLI, each built from its own sources alone.
type builderProgram struct {
	pkg, sourceList string
	// notIn are the packages it must not import.
	notIn []string
	// what it holds, for the messages.
	holds string
}

var (
	detector  = builderProgram{"./cmd/cuda-redist-detector", "cmd/cuda-redist-detector/sources.txt", notInDetector, "unpack and the per-archive facts"}
	aggregate = builderProgram{"./cmd/cuda-redist-aggregate", "cmd/cuda-redist-aggregate/sources.txt", notInAggregate, "the aggregate and the merged index"}
)

// notInAggregate are the packages the aggregate builder must not import:
// what runs outside the sandbox (report, check and --fix, the Nix driver
// and runner, the CLI) and the detector's code. A change to any of them
// must leave its bytes, and so every aggregate derivation, as they are.
var notInAggregate = []string{
	"lib/report", "lib/check", "lib/nixdriver", "lib/nixexec", "detector", "cmd/cuda-redist-find-features", "cmd/cuda-redist-detector",
}

// notInDetector are the packages the detector must not import: what runs
// outside the sandbox (report, check and --fix, the Nix driver and its
// log reader) and what the aggregate derives from the facts (aggregate,
// the buildRedist rules). A change to any of them must leave the
// detector's bytes, and so every unpack and detect derivation, as they are.
var notInDetector = []string{
	"lib/report", "lib/check", "lib/aggregate", "lib/buildredist", "lib/runtimedeps", "lib/nixdriver", "lib/nixexec", "lib/manifest", "cmd/cuda-redist-find-features",
}

// detectorPlatforms are the targets the flake builds the detector for:
// the source list is the union of their files.
var detectorPlatforms = []string{"linux/amd64", "linux/arm64"}

func goList(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = testenv.RepoRoot()
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return string(out)
}

// TestDetectorImportClosure: the detector's import closure holds none of
// notInDetector.
func TestDetectorImportClosure(t *testing.T) { checkImportClosure(t, detector) }

// TestAggregateImportClosure: the aggregate builder's import closure holds
// none of notInAggregate.
func TestAggregateImportClosure(t *testing.T) { checkImportClosure(t, aggregate) }

func checkImportClosure(t *testing.T, prog builderProgram) {
	for _, p := range strings.Fields(goList(t, nil, "-deps", prog.pkg)) {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		for _, bad := range prog.notIn {
			if rel == bad || strings.HasPrefix(rel, bad+"/") {
				t.Errorf("%s imports %s: it holds %s only (docs/design.md)", prog.pkg, rel, prog.holds)
			}
		}
	}
}

// programSources lists the files prog compiles from the
// repository (its packages' and their vendored dependencies' Go,
// assembly and embedded files, on every platform of detectorPlatforms)
// and the module files the build reads.
func programSources(t *testing.T, prog builderProgram) []string {
	t.Helper()
	root := testenv.RepoRoot()
	set := map[string]bool{"go.mod": true, "go.sum": true, "vendor/modules.txt": true}
	const tmpl = `{{if not .Standard}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}} {{end}}{{range .SFiles}}{{$d}}/{{.}} {{end}}{{range .HFiles}}{{$d}}/{{.}} {{end}}{{range .EmbedFiles}}{{$d}}/{{.}} {{end}}{{end}}`
	for _, pl := range detectorPlatforms {
		goos, goarch, _ := strings.Cut(pl, "/")
		env := []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=vendor"}
		for _, f := range strings.Fields(goList(t, env, "-deps", "-f", tmpl, prog.pkg)) {
			rel, err := filepath.Rel(root, f)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Fatalf("%s is outside the repository", f)
			}
			set[filepath.ToSlash(rel)] = true
		}
	}
	list := make([]string, 0, len(set))
	for f := range set {
		list = append(list, f)
	}
	sort.Strings(list)
	return list
}

// TestDetectorSourceList: sources.txt, from which nix/listed-source.nix
// builds the detector, lists exactly what it compiles (UPDATE_GOLDEN=1
// rewrites it).
func TestDetectorSourceList(t *testing.T) { checkSourceList(t, detector) }

// TestAggregateSourceList: the same for the aggregate builder and
// its sources.txt.
func TestAggregateSourceList(t *testing.T) { checkSourceList(t, aggregate) }

func checkSourceList(t *testing.T, prog builderProgram) {
	sourceList := prog.sourceList
	want := programSources(t, prog)
	path := filepath.Join(testenv.RepoRoot(), sourceList)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(strings.Join(want, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	got := strings.Fields(string(data))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s is not what %s compiles (-want +got; UPDATE_GOLDEN=1 rewrites it):\n%s", sourceList, prog.pkg, diff)
	}
}

// TestDetectorReproducible copies the files of sources.txt, and nothing
// else, to two directories of different names, the second a git
// repository with a commit, and builds the detector in each as
// scripts/sample.sh and the README's install line do: the list is enough
// to build it, and the same source gives the same bytes wherever it sits
// and whatever the commit (Go stamps a clone's commit without
// -buildvcs=false).
func TestDetectorReproducible(t *testing.T) {
	files := checkReproducible(t, detector)
	if slices.Contains(files, "lib/buildredist/analyze.go") {
		t.Errorf("the detector's sources hold the buildRedist rules")
	}
}

// TestAggregateReproducible: the same for the aggregate builder.
func TestAggregateReproducible(t *testing.T) {
	files := checkReproducible(t, aggregate)
	if slices.Contains(files, "lib/report/model.go") {
		t.Errorf("the aggregate builder's sources hold the report")
	}
}

// checkReproducible builds prog twice from the files of its source list
// alone and returns the list.
func checkReproducible(t *testing.T, prog builderProgram) []string {
	if testing.Short() {
		t.Skip("builds the program twice")
	}
	sourceList := prog.sourceList
	root := testenv.RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, sourceList))
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(data))
	var bins [][]byte
	for _, name := range []string{"a", "copy-b"} {
		dir := filepath.Join(t.TempDir(), name)
		for _, f := range files {
			copyFile(t, filepath.Join(root, f), filepath.Join(dir, f))
		}
		if name == "copy-b" {
			gitCommit(t, dir)
		}
		bin := filepath.Join(t.TempDir(), filepath.Base(prog.pkg))
		cmd := exec.Command("go", "build", "-mod=vendor", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", bin, prog.pkg)
		cmd.Dir = dir
		// Go's default (a user's go env may set -buildvcs=false): the
		// flags above alone make the bytes reproducible.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=auto")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build from the files of %s alone: %v\n%s", sourceList, err, out)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bins = append(bins, b)
	}
	if !bytes.Equal(bins[0], bins[1]) {
		t.Errorf("%s: two builds of the same source differ (%d and %d bytes)", prog.pkg, len(bins[0]), len(bins[1]))
	}
	return files
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitCommit makes dir a git repository holding its files in one commit.
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "sources"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			testenv.Unavailable(t, fmt.Sprintf("git %v: %v\n%s", args, err, out))
		}
	}
}
