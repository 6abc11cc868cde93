package ansi

import (
	"io"
	"strings"
	"sync"
)

const (
	esc = 0x1b
	bel = 0x07
)

// state is where in an escape sequence the bytes so far end.
type state int

const (
	text   state = iota
	escape       // after ESC
	csi          // after ESC [: parameters until a final byte 0x40-0x7E
	osc          // after ESC ]: a string until BEL or ESC \
	oscEsc       // ESC within an OSC string
)

// stripper is the byte-at-a-time state machine, so that a sequence split
// between two writes is still recognised.
type stripper struct{ st state }

// step takes one byte and says whether it is text to keep.
func (s *stripper) step(c byte) bool {
	switch s.st {
	case escape:
		s.st = afterEscape(c)
		return false
	case csi:
		if c >= 0x40 && c <= 0x7e {
			s.st = text
		}
		return false
	case osc:
		if c == bel {
			s.st = text
		} else if c == esc {
			s.st = oscEsc
		}
		return false
	case oscEsc:
		// ESC \ ends the string; any other byte leaves it going on.
		s.st = osc
		if c == '\\' {
			s.st = text
		}
		return false
	}
	if c == esc {
		s.st = escape
		return false
	}
	return true
}

// afterEscape is the state after ESC and c: CSI and OSC go on; any other
// two-byte sequence (ESC 7, ESC =, ...) ends with c.
func afterEscape(c byte) state {
	switch c {
	case '[':
		return csi
	case ']':
		return osc
	}
	return text
}

// filter appends the text bytes of b to dst.
func (s *stripper) filter(dst, b []byte) []byte {
	for _, c := range b {
		if s.step(c) {
			dst = append(dst, c)
		}
	}
	return dst
}

// Strip returns s without its escape sequences: the one way the CLI
// takes Nix's colours out of a message (nixlog, pkgeval) or a stream
// (Writer).
func Strip(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var st stripper
	return string(st.filter(make([]byte, 0, len(s)), []byte(s)))
}

// Writer writes to w what is written to it, without escape sequences. It
// is safe for concurrent use (the CLI's logs and the copies of Nix's
// output share stderr); writes are passed on whole, each under the lock.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	s   stripper
	buf []byte
}

// NewWriter strips what it passes on to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write reports len(b) when w took all that was left of it.
func (w *Writer) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = w.s.filter(w.buf[:0], b)
	if len(w.buf) == 0 {
		return len(b), nil
	}
	if _, err := w.w.Write(w.buf); err != nil {
		return 0, err
	}
	return len(b), nil
}
