package elfinfo

import (
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzZstdMaxWindow: the frame walk never panics, and the window it
// finds is at least the first frame's as klauspost/compress's header
// parse reads it.
func FuzzZstdMaxWindow(f *testing.F) {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	f.Add(enc.EncodeAll([]byte("libcudart.so.12\x00libc.so.6\x00"), nil))
	f.Add(append(enc.EncodeAll(make([]byte, 5000), nil), enc.EncodeAll([]byte("x"), nil)...))
	f.Add([]byte{0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 'h', 'i'})
	f.Fuzz(func(t *testing.T, src []byte) {
		w, err := zstdMaxWindow(src)
		var h zstd.Header
		if h.Decode(src) != nil || h.Skippable || len(src) == 0 {
			return
		}
		// The largest window is at least the first frame's.
		first := h.WindowSize
		if h.SingleSegment {
			first = h.FrameContentSize
		}
		if err == nil && w < first {
			t.Fatalf("first frame window %d, the walk says at most %d", first, w)
		}
	})
}
