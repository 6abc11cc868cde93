package pkgeval

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNixMessageOfEveryVersion: what NixMessage makes of the errors each
// Nix version gives for brokenFiles (testdata/nixerrors/VERSION/NAME.txt,
// written by TestCaptureNixErrors with that version; see
// lib/nixdriver/nixlog/testdata/capture.sh): the cause and its position in
// the package file, never a trace line or the stand-in's position.
func TestNixMessageOfEveryVersion(t *testing.T) {
	want := map[string]string{
		"missing":   "error: attribute 'hostCudaSystem' missing at missing.nix:2:15",
		"syntax":    "error: syntax error, unexpected '=', expecting ';' at syntax.nix:2:11",
		"assertion": "error: assertion '((lib).versionAtLeast \"1.0\" \"2.0\")' failed at assertion.nix:2:1",
		"recursion": "error: infinite recursion encountered at recursion.nix:1:26",
		"throw":     "error: this package needs CUDA 13",
	}
	for _, version := range []string{"2.8", "2.26", "2.34"} {
		for name, msg := range want {
			data, err := os.ReadFile(filepath.Join("testdata", "nixerrors", version, name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got := NixMessage(string(data), "/pkgs"); got != msg {
				t.Errorf("Nix %s, %s: NixMessage = %q, want %q", version, name, got, msg)
			}
		}
	}
}

// TestNixMessageWithTrace: -v (Options.Trace) keeps the trace lines
// Nix printed (2.13 and later print two through the stand-in), each with
// its position, after the cause.
func TestNixMessageWithTrace(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "nixerrors", "2.34", "missing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "error: attribute 'hostCudaSystem' missing at missing.nix:2:15" +
		"\n  … while evaluating attribute '\"missing.nix\"' at /repo/nix/buildredist-standin.nix:623:40" +
		"\n  … while evaluating list element at index 0 at /repo/nix/buildredist-standin.nix:623:40"
	if got := nixMessage(string(data), "/pkgs", true); got != want {
		t.Errorf("nixMessage with the trace = %q, want %q", got, want)
	}
}

// TestTracePosition: Nix 2.34's type error has no position of its own,
// and its default output shows only the stand-in's frames; with
// --show-trace (testdata/nixerrors/2.34/typeerr-show-trace.txt) the
// innermost frame in the package file is the operand of ++.
func TestTracePosition(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "nixerrors", "2.34", "typeerr-show-trace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if pos, call := tracePosition(string(data), "/pkgs/typeerr.nix"); pos != "/pkgs/typeerr.nix:2:23" || call != "" {
		t.Errorf("tracePosition = %q, %q, want /pkgs/typeerr.nix:2:23, no builtin", pos, call)
	}
	if pos, _ := tracePosition(string(data), "/pkgs/other.nix"); pos != "" {
		t.Errorf("tracePosition of a file the trace does not name = %q, want none", pos)
	}
	// A throw's innermost frame is its call: its message stays as it is.
	data, err = os.ReadFile(filepath.Join("testdata", "nixerrors", "2.34", "throw-show-trace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if pos, call := tracePosition(string(data), "/pkgs/throw.nix"); pos != "/pkgs/throw.nix:2:13" || call != "throw" {
		t.Errorf("tracePosition of a throw = %q, %q, want /pkgs/throw.nix:2:13, throw", pos, call)
	}
}

// TestNixMessageWithoutEscapes: every terminal escape goes, not only the
// colours (a hyperlink around the path, an erase to the end of the line),
// since the message reaches the report and the JSON (lib/ansi).
func TestNixMessageWithoutEscapes(t *testing.T) {
	stderr := "\x1b[K\x1b[31;1merror:\x1b[0m attribute 'x' missing\n\n       at \x1b]8;;file:///pkgs/a.nix\x1b\\/pkgs/a.nix:2:15\x1b]8;;\x1b\\:\n"
	if got, want := NixMessage(stderr, "/pkgs"), "error: attribute 'x' missing at a.nix:2:15"; got != want {
		t.Errorf("NixMessage = %q, want %q", got, want)
	}
}
