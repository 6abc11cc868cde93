package nixpipeline

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestFailuresNameTheirCause: with whichever Nix runs the suite, a run
// whose archives fail prints, for each, "failed NAME (STAGE): " and the
// builder's own last error line, never "fetched" or "unpacked" for it,
// and ends with the failures grouped by cause: a truncated archive whose
// sha256 matches, a host that does not resolve, a closed port, a URL
// scheme Nix does not know.
func TestFailuresNameTheirCause(t *testing.T) {
	requireNix(t)
	t.Run("truncated archive", func(t *testing.T) {
		dir := copySample(t)
		rel := "demo_samples/linux-x86_64/demo_samples-linux-x86_64-1.0.0-archive.tar.xz"
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		// Cut short, with a byte of its own so that no earlier run's
		// store has it: the fetch is new, the unpack fails.
		data = append(data[:len(data)/2:len(data)/2], randomByte(t))
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
			l := leaf(m, "demo_samples", "linux-x86_64")
			l["sha256"], l["size"] = hex.EncodeToString(sum[:]), fmt.Sprint(len(data))
			delete(l, "md5")
		})
		code, _, stderr := process(t, dir, "--version", "1.0.0")
		name := "demo_samples-linux-x86_64-1.0.0-archive"
		wantFailure(t, code, stderr, name, "unpack", `^failed `+name+` \(unpack\): .*unpack .*`+regexp.QuoteMeta(name)+`\.tar\.xz: xz: .+`,
			`^1 unpack failed: .*xz: `)
		// Its sha256 matches: the fetch (a local archive, added to the
		// store by the CLI) is fine.
		if strings.Contains(stderr, "(fetch)") {
			t.Errorf("a fetch is reported failed:\n%s", stderr)
		}
	})
	for _, tc := range []struct{ name, url, line, summary string }{
		{"unresolvable host", "http://no-such-host.invalid/sample",
			`: error: unable to download 'http://no-such-host\.invalid/sample/[^']+': Could(n't| not) resolve host`,
			`^4 fetches failed: could not resolve host \(offline\? try --offline with local archives\)$`},
		{"closed port", "http://" + closedPort(t) + "/sample",
			`: error: unable to download 'http://127\.0\.0\.1:[0-9]+/sample/[^']+': Could(n't| not) connect to server`,
			`^4 fetches failed: could not connect to the server$`},
		{"wrong scheme", "htps://127.0.0.1/sample",
			`: error: unable to download 'htps://127\.0\.0\.1/sample/[^']+': Unsupported protocol`,
			`^4 fetches failed: unsupported URL scheme$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copySample(t)
			// sha256s no store has: every archive is fetched.
			rewriteManifest(t, filepath.Join(dir, "redistrib_2.0.0.json"), func(m map[string]any) { newHashes(t, m) })
			args := []string{"process-manifests", "--nix-option", "substituters=", "--offline", "--redist-name", "sample", "--version", "2.0.0", tc.url, dir}
			code, _, stderr := runProgram(t, args...)
			wantFailure(t, code, stderr, "libdemo_variant-linux-x86_64-2.0.1_cuda11-archive", "fetch",
				`^failed libdemo_variant-linux-x86_64-2\.0\.1_cuda11-archive \(fetch\)`+tc.line, tc.summary)
			if n := strings.Count(stderr, " (fetch): error: unable to download"); n != 4 {
				t.Errorf("%d fetches failed with their cause, want 4:\n%s", n, stderr)
			}
		})
	}
}

// wantFailure checks a run failed, with the line of name's failure, no
// line saying its stage went well, and the summary line.
func wantFailure(t *testing.T, code int, stderr, name, stage, line, summary string) {
	t.Helper()
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, re := range []string{line, summary} {
		if !regexp.MustCompile(`(?m)` + re).MatchString(stderr) {
			t.Errorf("stderr lacks a line matching %s:\n%s", re, stderr)
		}
	}
	done := map[string]string{"fetch": "fetched", "unpack": "unpacked"}[stage]
	if regexp.MustCompile(`(?m)^` + done + ` ` + regexp.QuoteMeta(name) + `\b`).MatchString(stderr) {
		t.Errorf("the failed %s of %s is reported %s:\n%s", stage, name, done, stderr)
	}
}

// newHashes gives every archive (an object with a relative_path) below
// m a random sha256.
func newHashes(t *testing.T, m map[string]any) {
	if _, ok := m["relative_path"]; ok {
		m["sha256"] = randomHex(t)
		return
	}
	for _, v := range m {
		if sub, ok := v.(map[string]any); ok {
			newHashes(t, sub)
		}
	}
}

// closedPort is 127.0.0.1 and a port nothing listens on (it just did).
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func randomHex(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func randomByte(t *testing.T) byte {
	return randomHex(t)[0]
}

// TestEvalErrorsKeepTheirCause: with whichever Nix runs the suite, a
// package file that does not evaluate is reported with Nix's last
// "error:" line and its position in the file, relative to the packages
// directory (Nix 2.13 and later print trace lines at the stand-in's
// position first); with -v the trace lines follow, without it they do
// not.
func TestEvalErrorsKeepTheirCause(t *testing.T) {
	requireNix(t)
	pkgs := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(), "examples", "nixpkgs")+"/.", pkgs).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	// A syntax error beside the missing attribute of libdemo_variant.nix.
	broken := "{ buildRedist }: buildRedist { redistName = \"cuda\"; pname = \"demo_src\"\n  outputs = [ \"out\" ]; }\n"
	if err := os.WriteFile(filepath.Join(pkgs, "demo_src.nix"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(repoRoot(), "sample")
	want := []string{
		"ERROR demo_src.nix: does not evaluate: error: syntax error, unexpected '=', expecting ';' at demo_src.nix:2:11",
		"ERROR libdemo_variant.nix: does not evaluate: error: attribute 'hostCudaSystem' missing at libdemo_variant.nix:3:24",
	}
	for _, verbose := range []bool{false, true} {
		var extra []string
		if verbose {
			extra = []string{"-v"}
		}
		_, lines, stderr := checkNixpkgs(t, pkgs, sample, append(extra, "--eval-only")...)
		checkEvalErrors(t, verbose, lines, stderr, want)
	}
}

// checkEvalErrors: the lines' evaluation errors are want's; trace lines
// come only with -v (verbose), and then (Nix 2.13 and later: 2.8 prints
// none) each follows its ERROR on a line of its own.
func checkEvalErrors(t *testing.T, verbose bool, lines []string, stderr string, want []string) {
	t.Helper()
	var got []string
	for _, l := range lines {
		if strings.Contains(l, "does not evaluate") {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("-v %v: got\n%s\nwant\n%s\n%s", verbose, strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}
	if traced := strings.Contains(strings.Join(lines, "\n"), "… while evaluating"); traced && !verbose {
		t.Errorf("trace lines without -v:\n%s", strings.Join(lines, "\n"))
	}
	if verbose && testenv.NixAtLeast(t, 2, 13) {
		i := slices.Index(lines, want[1])
		if i < 0 || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "  … while evaluating ") {
			t.Errorf("-v: no trace line after %q:\n%s", want[1], strings.Join(lines, "\n"))
		}
	}
}

// TestCheckJSONNamesEachFailure: check-nixpkgs --json gives every
// archive whose fetch failed a fetchFailure finding that says which
// stage failed and the builder's last error line.
func TestCheckJSONNamesEachFailure(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	for _, v := range []string{"1.0.0", "2.0.0"} {
		rewriteManifest(t, filepath.Join(dir, "redistrib_"+v+".json"), func(m map[string]any) { newHashes(t, m) })
	}
	args := []string{"check-nixpkgs", "--nix-option", "substituters=", "--offline", "--json",
		"--url", "http://no-such-host.invalid/sample", filepath.Join(repoRoot(), "examples", "nixpkgs"), dir}
	_, stdout, stderr := runProgram(t, args...)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var f struct{ Kind, Package, Message string }
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if f.Kind != "fetchFailure" {
			continue
		}
		n++
		if !regexp.MustCompile(`^the archive could not be checked: fetch failed: error: unable to download 'http://no-such-host\.invalid/sample/[^']+': Could(n't| not) resolve host`).MatchString(f.Message) {
			t.Errorf("%s: %q", f.Package, f.Message)
		}
	}
	if n < 8 {
		t.Errorf("%d fetchFailure findings, want one per archive checked:\n%s\n%s", n, stdout, stderr)
	}
}
