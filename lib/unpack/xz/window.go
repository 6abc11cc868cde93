package xz

// maxChunkSize is the most an LZMA2 chunk decodes to (21 bits, plus one).
const maxChunkSize = 1 << 21

// window is the LZMA2 dictionary, kept linear rather than circular: a
// chunk is always decoded whole into room after the history, so the
// decoding loop never checks for an output limit, never wraps a
// position and never has to stop in the middle of a match. When the room
// runs out, the history (at most one dictionary) slides back to the
// start of the buffer. With the buffer one dictionary plus max(one
// dictionary, one chunk) long, a slide moves at most one byte per byte
// decoded since the last one; the buffer grows to that size as output
// arrives, so a small stream costs little memory whatever its
// dictionary size says.
//
// The LZMA position bits (pb, lp) are those of the position in the
// uncompressed data since the last dictionary reset; the buffer keeps
// that position and the index congruent modulo 16 (the largest pb and
// lp masks are 15), so the loop takes them from the index.
type window struct {
	buf  []byte
	pos  int    // where the next byte goes
	out  int    // the next byte the reader has not taken
	lim  int    // the oldest byte a match may reach: the start of the dictionary
	size uint32 // the dictionary size the stream declares
	max  int    // the buffer's length when fully grown
}

// winBase is the index a reset dictionary starts at: the byte before it
// stays zero, which is the previous byte LZMA assumes for the first
// literal, so the loop needs no test for an empty dictionary.
const winBase = 16

// init prepares the window for a dictionary of size bytes.
func (w *window) init(size uint32) {
	w.size = size
	w.max = 2*winBase + int(size) + max(int(size), maxChunkSize)
	if len(w.buf) > w.max {
		w.buf = w.buf[:w.max]
	}
	w.reset()
}

// reset empties the dictionary (LZMA2's dictionary reset). The reader
// has taken every byte before (out == pos).
func (w *window) reset() {
	if len(w.buf) < winBase {
		w.buf = make([]byte, min(w.max, 64<<10))
	}
	w.pos, w.out, w.lim = winBase, winBase, winBase
	w.buf[winBase-1] = 0
}

// room makes room for n more bytes at pos, keeping the dictionary's
// history; the reader has taken every byte before (out == pos).
func (w *window) room(n int) {
	if w.pos+n <= len(w.buf) {
		return
	}
	keep := min(w.pos-w.lim, int(w.size))
	from := w.pos - keep
	to := winBase + from%16 // congruent with from modulo 16
	dst := w.buf
	if len(w.buf) < w.max {
		dst = make([]byte, min(w.max, max(2*len(w.buf), to+keep+n)))
	}
	copy(dst[to:], w.buf[from:w.pos])
	dst[to-1] = 0
	w.buf = dst
	w.pos, w.out, w.lim = to+keep, to+keep, to
}

// avail is the decoded data the reader has not taken yet.
func (w *window) avail() []byte {
	return w.buf[w.out:w.pos]
}
