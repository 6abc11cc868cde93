package nixfix

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func TestDiffShape(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	new := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\nl\nm\n"
	want := `--- a/p.nix
+++ b/p.nix
@@ -2,7 +2,7 @@
 b
 c
 d
-e
+E
 f
 g
 h
@@ -10,3 +10,4 @@
 j
 k
 l
+m
`
	if got := Diff("p.nix", old, new); got != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff("p.nix", old, old); got != "" {
		t.Errorf("Diff of equal texts: %q", got)
	}
	if got := Diff("n.nix", "", "x\n"); got != "--- /dev/null\n+++ b/n.nix\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("Diff of a new file: %q", got)
	}
}

// TestDiffAppliesWithPatch: patch(1), the oracle, turns the old text into
// the new one with each diff, for random edits of random texts.
func TestDiffAppliesWithPatch(t *testing.T) {
	// GNU patch: BusyBox's (in the Nix build sandbox) lacks the options.
	if out, err := exec.Command("patch", "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "GNU patch") {
		testenv.Unavailable(t, "GNU patch is not installed (apt-get install patch)", "CRFF_REQUIRE_NIX")
	}
	r := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", "  \"out\"", "  \"lib\"", "]", ""}
	text := func(n int) []string {
		var l []string
		for i := 0; i < n; i++ {
			l = append(l, words[r.Intn(len(words))])
		}
		return l
	}
	for i := 0; i < 200; i++ {
		a := text(r.Intn(30))
		b := append([]string(nil), a...)
		for e := r.Intn(4); e >= 0; e-- {
			at := r.Intn(len(b) + 1)
			switch r.Intn(3) {
			case 0:
				b = append(b[:at], append(text(1+r.Intn(3)), b[at:]...)...)
			case 1:
				if at < len(b) {
					b = append(b[:at], b[at+1:]...)
				}
			default:
				if at < len(b) {
					b[at] = "x"
				}
			}
		}
		old, new := join(a), join(b)
		d := Diff("p.nix", old, new)
		if old == new {
			continue
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "p.nix")
		if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-s", "-p1", "--no-backup-if-mismatch")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v %s\ndiff:\n%s", err, out, d)
		}
		got, _ := os.ReadFile(p)
		if string(got) != new {
			t.Fatalf("patched %q, want %q\ndiff:\n%s", got, new, d)
		}
	}
}

func join(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
