package safetext

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, field, text string }{
		{"libcudart.so.12", "libcudart.so.12", "libcudart.so.12"},
		{"ünïcode ✓ 日本", "ünïcode ✓ 日本", "ünïcode ✓ 日本"},
		{"a\x1b[2Jb", `a\u001b[2Jb`, `a\u001b[2Jb`},
		{"line\r\nnext\tcol", `line\u000d\u000anext\u0009col`, "line\\u000d\nnext\tcol"},
		{"nul\x00bel\x07del\x7f", `nul\u0000bel\u0007del\u007f`, `nul\u0000bel\u0007del\u007f`},
		{"csi\u009b31m", `csi\u009b31m`, `csi\u009b31m`},
		{"abc\u202eexe.so", `abc\u202eexe.so`, `abc\u202eexe.so`},
		{"\u2066x\u2069\u200e\u061c", `\u2066x\u2069\u200e\u061c`, `\u2066x\u2069\u200e\u061c`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`, `bad\xffutf8\xc3`},
		{`back\slash`, `back\slash`, `back\slash`},
	} {
		if got := Escape(c.in); got != c.field {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.field)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// hasUnsafe reports a character of s that must not reach a terminal.
func hasUnsafe(s string, keepLines bool) bool {
	return firstUnsafe(s, keepLines) >= 0
}

// TestJSONStaysJSON: encoding/json leaves DEL, C1 and the bidi controls
// raw; through the Writer they are escaped and the JSON still decodes to
// the same string.
func TestJSONStaysJSON(t *testing.T) {
	in := "pkg\x7f\u0085\u202e\u2066\x1b\n"
	data, _ := json.Marshal(map[string]string{"name": in})
	if !hasUnsafe(string(data), true) {
		t.Fatalf("encoding/json escaped everything (%s): the Writer would not be needed for JSON", data)
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write(data)
	w.Flush()
	if hasUnsafe(out.String(), true) {
		t.Errorf("unsafe characters left: %q", out.String())
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["name"] != in {
		t.Errorf("decoded %q (%v), want %q", back["name"], err, in)
	}
}

// FuzzWriter: whatever the input and however it is split into writes,
// the output holds no unsafe character, and is what Text makes of the
// whole input.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("plain text\n"), uint8(3))
	f.Add([]byte("\u202e\u009b\x1b[0m\xe2\x80"), uint8(1))
	f.Add([]byte("日本\xf0\x9f\x98\x80"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		var out bytes.Buffer
		w := NewWriter(&out)
		n := int(step)%7 + 1
		for i := 0; i < len(in); i += n {
			end := min(i+n, len(in))
			if k, err := w.Write(in[i:end]); err != nil || k != end-i {
				t.Fatalf("Write: %d, %v", k, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := out.String(), Text(string(in)); got != want {
			t.Errorf("split by %d: %q, whole: %q", n, got, want)
		}
		if hasUnsafe(out.String(), true) || !utf8.ValidString(out.String()) {
			t.Errorf("output %q is not safe UTF-8", out.String())
		}
		if e := Escape(string(in)); strings.ContainsAny(e, "\n\t") || hasUnsafe(e, false) {
			t.Errorf("Escape(%q) = %q keeps a control character", in, e)
		}
	})
}

// TestNixLines: Nix's colours stay; an ESC sequence that is no colour,
// a CR and a bidi override in a line of Nix's are escaped, also when a
// write ends mid-line.
func TestNixLines(t *testing.T) {
	in := "\x1b[31;1merror:\x1b[0m attribute 'a\x1b]0;title\x07\r\u202eb' missing\nnext\x1b[2J"
	want := "\x1b[31;1merror:\x1b[0m attribute 'a\\u001b]0;title\\u0007\\u000d\\u202eb' missing\nnext\\u001b[2J"
	if got := TextKeepingColours(in); got != want {
		t.Errorf("TextKeepingColours = %q, want %q", got, want)
	}
	var out bytes.Buffer
	lw := NewLineWriter(&out)
	for i := range len(in) {
		lw.Write([]byte{in[i]})
	}
	lw.Flush()
	if out.String() != want {
		t.Errorf("LineWriter wrote %q, want %q", out.String(), want)
	}
}

func TestLineWriterSkips(t *testing.T) {
	var out strings.Builder
	lw := NewLineWriter(&out)
	lw.Skip = func(line string) bool { return strings.HasPrefix(line, "skip") }
	for _, piece := range []string{"keep 1\nski", "p this\nkeep 2\n", "skip", " too\nkeep\x1b]0;x\x07 3"} {
		lw.Write([]byte(piece))
	}
	lw.Flush()
	if want := "keep 1\nkeep 2\nkeep\\u001b]0;x\\u0007 3"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestFprintf: a newline, tab or escape in an argument is escaped; the
// format's own newline and tab stay.
func TestFprintf(t *testing.T) {
	var b strings.Builder
	Fprintf(&b, "%s\t%s %v %d\n", "a\nFORGED", []string{"x\ty"}, errors.New("e\x1b[2J"), 3)
	if want := `a\u000aFORGED` + "\t" + `[x\u0009y] e\u001b[2J 3` + "\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
