package xz

// maxChunkSize is the most an LZMA2 chunk decodes to (21 bits, plus one).
const maxChunkSize = 1 << 21

// window is the LZMA2 dictionary: a ring of ring bytes at buf[winBase:]
// (the dictionary size rounded up to 16, at least one chunk), followed
// by a spill area of one chunk. A chunk is always decoded whole and in a straight line from
// pos, running into the spill area if need be, so the decoding loop
// never tests for an output limit and never stops in the middle of a
// match. Before the next chunk, what spilled is copied to the start of
// the ring, where it belongs: at most one chunk's bytes per trip around
// the ring. Only a match source can wrap around: a source before
// winBase is in the ring's previous lap, ring bytes later.
//
// The LZMA position bits (pb, lp) are those of the position in the
// output since the last dictionary reset. A reset puts pos at winBase
// and the ring is a multiple of 16 long, so the index of a byte stays
// congruent with its position modulo 16 (the largest pb and lp masks
// are 15), and the loop takes them from the index.
//
// The buffer grows by quadrupling as output arrives, so a short stream
// costs little memory whatever its dictionary size says.
type window struct {
	buf  []byte
	pos  int    // where the next byte goes
	out  int    // the next byte the reader has not taken
	full int    // the dictionary's bytes so far: min(output since the reset, size)
	size uint32 // the dictionary size the stream declares
	ring int    // the ring's length: size rounded up to 16
}

// winBase is where the ring starts. The byte before it is the byte
// before the ring's first (zero after a reset, as LZMA wants for the
// first literal; else the previous lap's last), so the loop reads the
// previous byte without a test.
const winBase = 16

func (w *window) fullLen() int { return winBase + w.ring + maxChunkSize + copyPad }

// copyPad: the LZMA loop copies matches eight bytes at a time and may
// write up to 7 bytes past a match's end, so the ring holds copyPad
// bytes more than the dictionary (what it overwrites there is farther
// back than any match may reach) and the buffer ends copyPad bytes after
// the spill area.
const copyPad = 16

// init prepares the window for a dictionary of size bytes.
func (w *window) init(size uint32) {
	w.size = size
	// At least a chunk, so that a chunk spills less than one lap.
	w.ring = max((int(size)+15)&^15+copyPad, maxChunkSize)
	if len(w.buf) > w.fullLen() {
		w.buf = w.buf[:w.fullLen()]
	}
	w.reset()
}

// reset empties the dictionary (LZMA2's dictionary reset). The reader
// has taken every byte before (out == pos).
func (w *window) reset() {
	if len(w.buf) < winBase {
		w.buf = make([]byte, min(w.fullLen(), 64<<10))
	}
	w.pos, w.out, w.full = winBase, winBase, 0
	w.buf[winBase-1] = 0
}

// room makes room for a chunk of n bytes at pos; the reader has taken
// every byte before (out == pos).
func (w *window) room(n int) {
	end := winBase + w.ring
	if w.pos >= end {
		// Bring what spilled past the ring back to its start.
		w.buf[winBase-1] = w.buf[end-1]
		k := copy(w.buf[winBase:], w.buf[end:w.pos])
		w.pos, w.out = winBase+k, winBase+k
	}
	if w.pos+n+copyPad > len(w.buf) {
		grown := allocWindow(min(w.fullLen(), max(4*len(w.buf), w.pos+n+copyPad)))
		copy(grown, w.buf[:w.pos])
		w.buf = grown
	}
}

// wrote records that the bytes up to pos were decoded.
func (w *window) wrote(pos int) {
	w.full = min(w.full+pos-w.pos, int(w.size))
	w.pos = pos
}

// avail is the decoded data the reader has not taken yet.
func (w *window) avail() []byte {
	return w.buf[w.out:w.pos]
}
