// Package safetext escapes what a terminal or a reader of a commit
// message must not get raw: names that come from the input (package
// names, versions, sonames, paths in archives) can hold control
// characters that move the cursor, recolour or retitle a terminal (ANSI
// ESC sequences, C1 controls such as CSI U+009B), overwrite a line (CR),
// or reorder what is shown (the bidirectional overrides and isolates:
// Trojan Source).
//
// An unsafe character becomes a \uXXXX escape (a byte that is not UTF-8:
// \xNN), as in a JSON string: a JSON stream that passes through keeps
// its meaning, and text stays readable. Safe text passes unchanged. The
// escaping is for showing, not reversible: a backslash stays as it is.
package safetext

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r must not reach a terminal raw. keepLines
// leaves newline and tab (the structure of text) as they are.
func unsafe(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi overrides, isolates
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c: // bidi marks
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// Escape makes one name (a field of a line) safe: every control
// character is escaped, newline and tab included, so the name cannot
// break the line it is shown in.
func Escape(s string) string { return escape(s, false) }

// Text makes free text safe (an error message, a line of Nix's): newline
// and tab stay, every other control character is escaped.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		appendRune(&b, s[i:i+n], r, keepLines)
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of s's first byte to escape, -1 for none.
func firstUnsafe(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r, keepLines) {
			return i
		}
		i += n
	}
	return -1
}

func appendRune(b *strings.Builder, raw string, r rune, keepLines bool) {
	switch {
	case r == utf8.RuneError && len(raw) == 1:
		fmt.Fprintf(b, `\x%02x`, raw[0])
	case unsafe(r, keepLines):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteString(raw)
	}
}

// Writer escapes a text stream like Text on its way to w: the output
// boundary of the results on stdout. A UTF-8 sequence split between two
// writes is held until it is whole; Flush writes what is held.
type Writer struct {
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer escaping to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it returns len(p) when every byte was
// taken (written, or held as the start of a UTF-8 sequence).
func (sw *Writer) Write(p []byte) (int, error) {
	data := p
	if len(sw.held) > 0 {
		data = append(sw.held, p...)
		sw.held = nil
	}
	// A trailing incomplete sequence waits for the next write.
	keep := incompleteTail(data)
	if keep > 0 {
		sw.held = append([]byte(nil), data[len(data)-keep:]...)
		data = data[:len(data)-keep]
	}
	if len(data) > 0 {
		if _, err := io.WriteString(sw.w, Text(string(data))); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes a held incomplete sequence (escaped: it is not UTF-8).
func (sw *Writer) Flush() error {
	if len(sw.held) == 0 {
		return nil
	}
	s := Text(string(sw.held))
	sw.held = nil
	_, err := io.WriteString(sw.w, s)
	return err
}

// incompleteTail is the length of a UTF-8 sequence data ends with that
// more bytes could complete (0 when none).
func incompleteTail(data []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(data); n++ {
		c := data[len(data)-n]
		if c < 0x80 {
			return 0 // ASCII: nothing pending
		}
		if c >= 0xc0 { // a leading byte: is its sequence longer than what follows?
			if need := seqLen(c); need > n {
				return n
			}
			return 0
		}
	}
	return 0
}

// seqLen is the length of the UTF-8 sequence that the leading byte c
// starts.
func seqLen(c byte) int {
	switch {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	}
	return 2
}

// sgr matches the Select Graphic Rendition sequences Nix colours its
// messages with (reset, bold, faint, bold red to cyan); no other one
// (conceal, say) passes.
var sgr = regexp.MustCompile(`\x1b\[(?:0|1|2|3[1-6];1)m`)

// TextKeepingColours is Text for a line of Nix's: its colours stay, as
// they only colour; any other control character is escaped.
func TextKeepingColours(s string) string {
	if firstUnsafe(s, true) < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range sgr.FindAllStringIndex(s, -1) {
		b.WriteString(Text(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(Text(s[last:]))
	return b.String()
}

// LineWriter passes what a command (Nix) writes to w line by line, each
// made safe by TextKeepingColours; Flush writes an unfinished last line.
// Lines for which Skip (when set) says true are left out.
type LineWriter struct {
	w       io.Writer
	pending []byte
	// Skip names lines not to pass on (without their newline).
	Skip func(line string) bool
}

// NewLineWriter returns a LineWriter to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Write never fails: a failing write would make the command's output
// pipe stop being read, and the command would fail writing.
func (lw *LineWriter) Write(p []byte) (int, error) {
	lw.pending = append(lw.pending, p...)
	if i := bytes.LastIndexByte(lw.pending, '\n'); i >= 0 {
		lw.emit(string(lw.pending[:i+1]))
		lw.pending = append(lw.pending[:0], lw.pending[i+1:]...)
	}
	return len(p), nil
}

// emit writes whole lines (or the unfinished last one), leaving out the
// skipped ones.
func (lw *LineWriter) emit(text string) error {
	if lw.Skip != nil {
		var kept strings.Builder
		for _, line := range strings.SplitAfter(text, "\n") {
			if line != "" && !lw.Skip(strings.TrimSuffix(line, "\n")) {
				kept.WriteString(line)
			}
		}
		text = kept.String()
	}
	if text == "" {
		return nil
	}
	_, err := io.WriteString(lw.w, TextKeepingColours(text))
	return err
}

// Flush writes the unfinished last line.
func (lw *LineWriter) Flush() error {
	if len(lw.pending) == 0 {
		return nil
	}
	err := lw.emit(string(lw.pending))
	lw.pending = nil
	return err
}

// Fprintf is fmt.Fprintf with every string argument (a name from the
// input: a package key, a soname, a path) passed through Escape, so that
// a newline or tab in a name cannot forge a line or a column of the text
// output; the format's own newlines and tabs stay. A []string argument
// has each element escaped; error and fmt.Stringer values are escaped
// as their text.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, escapeArgs(args)...)
}

// Sprintf is Fprintf to a string.
func Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, escapeArgs(args)...)
}

func escapeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = Escape(v)
		case []string:
			e := make([]string, len(v))
			for j, s := range v {
				e[j] = Escape(s)
			}
			out[i] = e
		case error:
			out[i] = Escape(v.Error())
		case fmt.Stringer:
			out[i] = Escape(v.String())
		default:
			out[i] = a
		}
	}
	return out
}
