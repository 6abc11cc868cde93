package xz

import "testing"

// TestWindowCopyPad holds the window to what the LZMA loop's eight-byte
// match copies need: the last step writes up to 7 bytes past a match, so
// the ring must be at least 8 bytes longer than the dictionary (the
// bytes it overwrites, ring-1 to ring-7 back, must be farther than any
// match may reach), and the buffer must hold 8 bytes past any chunk that
// room made room for.
func TestWindowCopyPad(t *testing.T) {
	for _, size := range []uint32{4 << 10, 1<<21 - 16, 1 << 21, 1<<21 + 1, 3 << 20, 3<<20 + 5, 8 << 20, 64 << 20} {
		var w window
		w.init(size)
		if w.ring < int(size)+8 || w.ring%16 != 0 {
			t.Errorf("dictionary %d: ring %d, want a multiple of 16 of at least %d", size, w.ring, int(size)+8)
		}
		// A chunk at the end of the ring, and one as large as a chunk
		// gets, spilling past it.
		for _, n := range []int{1, maxChunkSize} {
			w.reset()
			w.room(n)
			if len(w.buf) < w.pos+n+8 {
				t.Errorf("dictionary %d, chunk %d at %d: buffer %d, want at least %d", size, n, w.pos, len(w.buf), w.pos+n+8)
			}
			// After a lap the buffer has its full length.
			w.buf = make([]byte, w.fullLen())
			w.pos = winBase + w.ring - 1
			w.out = w.pos
			w.room(n)
			if len(w.buf) < w.pos+n+8 {
				t.Errorf("dictionary %d, chunk %d at %d: buffer %d, want at least %d", size, n, w.pos, len(w.buf), w.pos+n+8)
			}
		}
	}
}
