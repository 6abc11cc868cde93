package nixstring

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// evalNix evaluates the Nix expression expr (written to a file, not
// passed in argv) with nix-instantiate --eval --json and returns the
// string it evaluates to.
func evalNix(t *testing.T, expr string) (string, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "e.nix")
	if err := os.WriteFile(p, []byte(expr), 0o644); err != nil {
		t.Fatal(err)
	}
	// A hang guard only: one evaluation takes milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "nix-instantiate", "--eval", "--json", "--strict", p)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: stderr.Bytes()}
	}
	var got string
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("nix-instantiate printed %q: %v", stdout.String(), err)
	}
	return got, nil
}

// seeds are the strings Nix quotes by rules of its own.
var seeds = []string{
	"", "plain", `"`, `\`, `\\"`, "${x}", "$${x}", "$$", "$", "a$", "${", "\\${", "$\\{", "''", "''${", "'",
	"\n", "\r\n", "\t", "x\ny", "\x01\x1b[2J", "\u00e9\u65e5", `\u00e9`, `\x41`, "}", "${toString 1}",
	"sm_90a", "linux-x86_64", "cuda12",
}

// FuzzQuote: every string (valid UTF-8, no NUL: what a Nix string can
// hold and JSON can give back) written by Quote parses and evaluates,
// with the real nix-instantiate, to the same string. `go test` runs the
// seeds; go test -fuzz FuzzQuote ./lib/nixstring searches further.
func FuzzQuote(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
			t.Skip("Nix strings hold no NUL; JSON gives back only UTF-8")
		}
		testenv.RequireNix(t, "nix-instantiate")
		got, err := evalNix(t, Quote(s))
		if err != nil {
			t.Fatalf("Quote(%q) = %s does not evaluate: %v\n%s", s, Quote(s), err, err.(*exec.ExitError).Stderr)
		}
		if got != s {
			t.Errorf("Quote(%q) = %s evaluates to %q", s, Quote(s), got)
		}
	})
}

// TestStrconvQuoteIsNotNix: what the writers used before: "${" and
// Go's \u escapes do not survive Nix (so Quote's test can fail).
func TestStrconvQuoteIsNotNix(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	for _, s := range []string{"${builtins.currentSystem}", "\x01"} {
		got, err := evalNix(t, strconv.Quote(s))
		if err == nil && got == s {
			t.Errorf("strconv.Quote(%q) evaluates to itself; the seed proves nothing", s)
		}
	}
}

func TestList(t *testing.T) {
	if got, want := List([]string{"out", "a${b}"}), `[ "out" "a\${b}" ]`; got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
}
