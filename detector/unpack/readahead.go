package unpack

import "io"

const (
	readAheadChunk = 1 << 20 // bytes per chunk handed from decoder to writer
	readAheadDepth = 4       // chunks in flight: memory is bounded by depth+2 chunks
)

type chunk struct {
	buf []byte
	err error
}

// readAhead runs the decoder r on its own goroutine, a few chunks ahead of
// the consumer. Decompression (xz is ~all of the cost) then overlaps with
// tar parsing and file writes on the second core.
// Close stops the decoder goroutine; call it when done, even early.
func readAhead(r io.Reader) io.ReadCloser {
	ra := &readAheader{
		full: make(chan chunk, readAheadDepth+1),
		free: make(chan []byte, readAheadDepth+1),
		done: make(chan struct{}),
	}
	for i := 0; i < readAheadDepth+1; i++ {
		ra.free <- make([]byte, readAheadChunk)
	}
	go ra.fill(r)
	return ra
}

type readAheader struct {
	full chan chunk
	free chan []byte
	done chan struct{}
	cur  []byte // unread part of the chunk being consumed
	back []byte // whole buffer of the chunk being consumed
	err  error
}

func (ra *readAheader) fill(r io.Reader) {
	defer close(ra.full)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		n, err := fill(r, buf)
		// full has room for every buffer, so this send never blocks.
		ra.full <- chunk{buf: buf[:n], err: err}
		if err != nil {
			return
		}
	}
}

func (ra *readAheader) Close() error {
	close(ra.done)
	return nil
}

func (ra *readAheader) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.back != nil {
			ra.free <- ra.back[:cap(ra.back)]
			ra.back = nil
		}
		c, ok := <-ra.full
		if !ok {
			return 0, io.EOF
		}
		ra.cur, ra.back, ra.err = c.buf, c.buf, c.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// fill reads into buf until it is full or r fails. Unlike io.ReadFull it
// passes r's error on unchanged: a decoder's io.ErrUnexpectedEOF (a
// truncated stream) must not become a clean io.EOF.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
