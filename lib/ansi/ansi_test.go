package ansi

import (
	"bytes"
	"testing"
)

// nixError is a message of Nix 2.8's structured log as it arrives
// (the JSON string decoded): colours around "error:" and the path.
const nixError = "\x1b[31;1merror:\x1b[0m builder for '\x1b[35;1m/nix/store/i6q7-fail.drv\x1b[0m' failed with exit code 1"

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		nixError:                "error: builder for '/nix/store/i6q7-fail.drv' failed with exit code 1",
		"\r\x1b[Karchives: 1/2": "\rarchives: 1/2",
		"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x07b": "alinkb",
		"keep [brackets] and ] too\n":              "keep [brackets] and ] too\n",
		"\x1b7saved\x1b8":                          "saved",
		"unterminated \x1b[31":                     "unterminated ",
		"ünïcode \x1b[1mbold\x1b[m":                "ünïcode bold",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriterSplitSequences: a sequence cut between writes (as a pipe's
// reads cut Nix's output anywhere) is still taken out, whatever the cut.
func TestWriterSplitSequences(t *testing.T) {
	want := Strip(nixError)
	for cut := 0; cut <= len(nixError); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, part := range []string{nixError[:cut], nixError[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("cut %d: Write = %d, %v", cut, n, err)
			}
		}
		if out.String() != want {
			t.Errorf("cut %d: %q, want %q", cut, out.String(), want)
		}
	}
}

// FuzzStrip: no ESC survives, text without ESC is kept as it is, and
// writing in two parts gives what stripping the whole gives.
func FuzzStrip(f *testing.F) {
	f.Add([]byte(nixError), 7)
	f.Add([]byte("\x1b]0;title\x1b\\x"), 3)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		whole := []byte(Strip(string(in)))
		if bytes.IndexByte(whole, esc) >= 0 {
			t.Fatalf("%q: ESC left in %q", in, whole)
		}
		if bytes.IndexByte(in, esc) < 0 && !bytes.Equal(whole, in) {
			t.Fatalf("%q: plain text changed to %q", in, whole)
		}
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		var out bytes.Buffer
		w := NewWriter(&out)
		w.Write(in[:cut])
		w.Write(in[cut:])
		if !bytes.Equal(out.Bytes(), whole) {
			t.Fatalf("%q cut at %d: %q, whole %q", in, cut, out.Bytes(), whole)
		}
	})
}
