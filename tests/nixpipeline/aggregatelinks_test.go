package nixpipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// linkState is what a second run must not change about a link: where it
// points and the link itself (a remade link is a new inode).
type linkState struct {
	target string
	ino    uint64
	mtime  time.Time
}

func statLink(t *testing.T, path string) linkState {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is not a symlink", path)
	}
	target, err := os.Readlink(path)
	if err != nil {
		t.Fatal(err)
	}
	return linkState{target, fi.Sys().(*syscall.Stat_t).Ino, fi.ModTime()}
}

// TestProcessManifestsLeavesRootedResults: process-manifests prints, per
// manifest, the feature file and aggregate_<version>, a link to the
// aggregate directory in the store that is a GC root (Nix refuses to
// delete the path while the link exists, and deletes it once the link is
// gone); report, print-buildredist, print-dependencies and diff read the
// manifest directory; a second run changes no file and no link; --out
// puts the links elsewhere.
func TestProcessManifestsLeavesRootedResults(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	// 2.0.0's aggregate is then this test's alone: it may be deleted.
	useNewSourceArchive(t, dir, "rooted", true)
	code, stdout, stderr := process(t, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var want []string
	for _, v := range []string{"1.0.0", "2.0.0"} {
		want = append(want, filepath.Join(dir, "feature_"+v+".json"), filepath.Join(dir, "aggregate_"+v))
	}
	if got := strings.Fields(stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stdout:\n%s\nwant:\n%s", stdout, strings.Join(want, "\n"))
	}
	link := filepath.Join(dir, "aggregate_2.0.0")
	out := checkRootedAggregate(t, dir, link)
	readsResults(t, dir)
	secondRunChangesNothing(t, dir, stdout)
	linksElsewhereThenCollectable(t, dir, link, out)
}

// checkRootedAggregate: link is a GC root of an aggregate directory in
// the store, which holds the results and which the collector keeps; it
// returns the store path.
func checkRootedAggregate(t *testing.T, dir, link string) string {
	t.Helper()
	out := statLink(t, link).target
	if !strings.HasPrefix(out, "/nix/store/") {
		t.Fatalf("%s -> %s: not a store path", link, out)
	}
	for _, f := range []string{"feature_2.0.0.json", "index.json", "detail.json", "buildRedist.json"} {
		if _, err := os.Stat(filepath.Join(link, f)); err != nil {
			t.Errorf("aggregate directory: %v", err)
		}
	}
	diffPaths(t, filepath.Join(link, "feature_2.0.0.json"), filepath.Join(dir, "feature_2.0.0.json"))
	if roots := mustNix(t, "nix-store", "-q", "--roots", out); !strings.Contains(roots, link+" -> "+out) {
		t.Errorf("%s is not a GC root of %s; roots:\n%s", link, out, roots)
	}
	// The garbage collector keeps it. (nix-store --delete is the
	// collector on the given paths only: a full --gc would take what the
	// other tests built from the shared store.)
	if _, errOut, err := nix(t, "nix-store", "--delete", out); err == nil || !strings.Contains(errOut, "alive") {
		t.Errorf("nix-store --delete %s: %v, want it refused as alive:\n%s", out, err, errOut)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("the rooted aggregate is gone: %v", err)
	}
	return out
}

// linksElsewhereThenCollectable: with --out the links go there (the
// feature files stay beside the manifests); without its links, the
// aggregate out is garbage: the control that the links were what kept
// it.
func linksElsewhereThenCollectable(t *testing.T, dir, link, out string) {
	t.Helper()
	links := t.TempDir()
	code, stdout, stderr := process(t, dir, "--out", links, "--version", "2.0.0")
	if code != 0 || !strings.Contains(stdout, filepath.Join(links, "aggregate_2.0.0")+"\n") || statLink(t, filepath.Join(links, "aggregate_2.0.0")).target != out {
		t.Errorf("--out: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	for _, l := range []string{link, filepath.Join(links, "aggregate_2.0.0")} {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, err := nix(t, "nix-store", "--delete", out); err != nil {
		t.Errorf("nix-store --delete %s once the links are gone: %v\n%s", out, err, errOut)
	}
}

// readsResults: the commands that read aggregates take the manifest
// directory process-manifests left results in, and read from it what
// they read from the aggregate directory itself.
func readsResults(t *testing.T, dir string) {
	t.Helper()
	for _, c := range [][2][]string{
		{{"print-buildredist", dir}, {"print-buildredist", filepath.Join(dir, "aggregate_2.0.0", "buildRedist.json")}},
		{{"print-dependencies", "--version", "1.0.0", dir}, {"print-dependencies", filepath.Join(dir, "aggregate_1.0.0")}},
		{{"diff", dir}, {"diff", filepath.Join(dir, "aggregate_1.0.0"), filepath.Join(dir, "aggregate_2.0.0")}},
	} {
		code, got, stderr := runProgram(t, c[0]...)
		_, want, _ := runProgram(t, c[1]...)
		if code != 0 || got != want || got == "" {
			t.Errorf("%v: exit %d, %s\nstdout:\n%s\n%v gives:\n%s", c[0], code, stderr, got, c[1], want)
		}
	}
	report := t.TempDir()
	code, _, stderr := runProgram(t, "report", "--out", report, dir)
	data, _ := os.ReadFile(filepath.Join(report, "report.json"))
	if code != 0 || !strings.Contains(string(data), `"version": "1.0.0"`) || !strings.Contains(string(data), `"version": "2.0.0"`) {
		t.Errorf("report %s: exit %d, %s", dir, code, stderr)
	}
}

// secondRunChangesNothing runs process-manifests again: the same stdout,
// no file rewritten (their times are set to an old date first, which a
// rewrite would replace), no link remade.
func secondRunChangesNothing(t *testing.T, dir, firstStdout string) {
	t.Helper()
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	files := []string{filepath.Join(dir, "feature_1.0.0.json"), filepath.Join(dir, "feature_2.0.0.json")}
	for _, f := range files {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]linkState{}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		l := filepath.Join(dir, "aggregate_"+v)
		links[l] = statLink(t, l)
	}
	code, stdout, stderr := process(t, dir)
	if code != 0 || stdout != firstStdout {
		t.Fatalf("second run: exit %d, stdout %q (first %q)\n%s", code, stdout, firstStdout, stderr)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || !fi.ModTime().Equal(old) {
			t.Errorf("second run rewrote %s (%v)", f, err)
		}
	}
	for l, before := range links {
		if after := statLink(t, l); after != before {
			t.Errorf("second run remade %s: %+v, was %+v", l, after, before)
		}
	}
}

// TestProcessManifestsOffline: with substituters configured (here one
// that refuses connections, through NIX_CONFIG as a user's nix.conf
// would), a run that builds something asks it first and shows Nix's
// retries; --offline asks no cache, so nothing of that shows.
func TestProcessManifestsOffline(t *testing.T) {
	requireNix(t)
	const cache = "http://127.0.0.1:1"
	t.Setenv("NIX_CONFIG", "substituters = "+cache+"\n")
	run := func(name string, extra ...string) (int, string) {
		dir := copySample(t)
		useNewSourceArchive(t, dir, name, true)
		args := append([]string{"process-manifests", "--redist-name", "sample", "--version", "2.0.0"}, extra...)
		start := time.Now()
		code, _, stderr := runProgram(t, append(args, "file://"+dir, dir)...)
		// For the record only; nothing depends on it.
		t.Logf("%v: %v", extra, time.Since(start))
		return code, stderr
	}
	code, stderr := run("offline", "--offline")
	if code != 0 || strings.Contains(stderr, cache) || strings.Contains(stderr, "retrying") {
		t.Errorf("--offline: exit %d; stderr:\n%s", code, stderr)
	}
	// The control: without --offline the same kind of run asks the cache.
	if _, stderr := run("online"); !strings.Contains(stderr, cache) {
		t.Errorf("without --offline the cache %s was not asked; the test shows nothing:\n%s", cache, stderr)
	}
}

// TestProcessManifestsNoColoursInPipes: a build that fails makes Nix log
// a coloured error (as its structured log shows: the control); on a
// stderr that is a pipe the CLI shows the message without the colours.
func TestProcessManifestsNoColoursInPipes(t *testing.T) {
	requireNix(t)
	fail := filepath.Join(t.TempDir(), "fail.nix")
	expr := `derivation { name = "crff-colour-` + time.Now().Format("150405.000000000") + `"; system = builtins.currentSystem; builder = "/bin/sh"; args = [ "-c" "exit 1" ]; }`
	if err := os.WriteFile(fail, []byte(expr), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, _ := exec.Command("nix-build", fail, "--no-out-link", "--option", "substituters", "", "--log-format", "internal-json").CombinedOutput()
	if !strings.Contains(string(raw), `\u001b[`) {
		t.Fatalf("control: Nix's structured log has no colours; the test shows nothing:\n%s", raw)
	}
	dir := copySample(t)
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		leaf(m, "demo_samples", "linux-x86_64")["sha256"] = strings.Repeat("0", 63) + "2"
	})
	code, _, stderr := process(t, dir, "--version", "1.0.0", "--offline")
	if code != 1 || !strings.Contains(stderr, "error:") {
		t.Fatalf("exit %d, want 1 with Nix's error:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "\x1b") {
		t.Errorf("escape sequences on a piped stderr:\n%q", stderr)
	}
}

// TestVersionBeforeCommandRefused: the program's --version before
// process-manifests is refused before anything runs; after it, it is the
// manifest filter.
func TestVersionBeforeCommandRefused(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	code, stdout, stderr := runProgram(t, "--version", "process-manifests", "--offline", "file://"+dir, dir)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "ambiguous") {
		t.Errorf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "feature_*")); len(left) > 0 {
		t.Errorf("the refused run wrote %v", left)
	}
	code, stdout, stderr = runProgram(t, "process-manifests", "--version", "1.0.0", "--offline", "--redist-name", "sample", "file://"+dir, dir)
	if code != 0 || strings.Join(strings.Fields(stdout), " ") != filepath.Join(dir, "feature_1.0.0.json")+" "+filepath.Join(dir, "aggregate_1.0.0") {
		t.Errorf("process-manifests --version 1.0.0: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}
