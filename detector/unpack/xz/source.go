package xz

import (
	"errors"
	"fmt"
	"io"
)

const (
	// sourceSize is the input buffer's size, a power of two: the range
	// decoder indexes it with a mask, which needs no bounds check. It
	// holds the largest LZMA2 chunk (64 KiB of compressed data and its
	// 6-byte header) with room to spare, so a chunk is always contiguous
	// in the buffer and is decoded where it lies.
	sourceSize = 256 << 10
	// overrunPad bytes at the end of the buffer are never filled: the
	// LZMA loop checks for the end of its chunk once per symbol, and a
	// symbol reads at most 48 bytes (one per bit), so it may read that
	// far past the end before it notices. What it reads there does not
	// matter, since the chunk is then corrupt.
	overrunPad  = 128
	sourceLimit = sourceSize - overrunPad
)

// inputBuf is the input buffer as the range decoder sees it.
type inputBuf = [sourceSize]byte

// source is the buffered compressed input. It counts the bytes taken,
// which the block and index checks need and error messages report.
type source struct {
	r        io.Reader
	buf      []byte // buf[pos:end] is read and not yet taken
	pos, end int
	taken    int64 // bytes taken since the start of the input
	eof      bool
}

func (s *source) reset(r io.Reader) {
	if s.buf == nil {
		s.buf = make([]byte, sourceSize)
	}
	s.r, s.pos, s.end, s.taken, s.eof = r, 0, 0, 0, false
}

// fill buffers at least n bytes (n <= sourceLimit/2) and returns all that
// is buffered, or fails with errTruncated if the input ends first.
func (s *source) fill(n int) ([]byte, error) {
	if s.end-s.pos >= n {
		return s.buf[s.pos:s.end], nil
	}
	if s.pos+n > sourceLimit {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	for s.end-s.pos < n {
		if s.eof {
			return nil, fmt.Errorf("%w: input ends at byte %d, inside a field of %d bytes", ErrTruncated, s.taken+int64(s.end-s.pos), n)
		}
		k, err := s.r.Read(s.buf[s.end:sourceLimit])
		s.end += k
		switch {
		case errors.Is(err, io.EOF):
			s.eof = true
		case err != nil:
			return nil, err
		case k == 0:
			// A reader that returns nothing and no error: count it as
			// the end rather than spin.
			s.eof = true
		}
	}
	return s.buf[s.pos:s.end], nil
}

// take returns the next n bytes and consumes them. The slice is valid
// until the next call.
func (s *source) take(n int) ([]byte, error) {
	if _, err := s.fill(n); err != nil {
		return nil, err
	}
	b := s.buf[s.pos : s.pos+n]
	s.skip(n)
	return b, nil
}

// chunk buffers the next n bytes and returns the whole buffer and where
// they start in it, without consuming them. At least overrunPad bytes
// of the buffer follow them.
func (s *source) chunk(n int) (*inputBuf, int, error) {
	if _, err := s.fill(n); err != nil {
		return nil, 0, err
	}
	return (*inputBuf)(s.buf), s.pos, nil
}

func (s *source) skip(n int) {
	s.pos += n
	s.taken += int64(n)
}

// atEOF reports whether the input has no byte left.
func (s *source) atEOF() (bool, error) {
	if s.end > s.pos {
		return false, nil
	}
	if _, err := s.fill(1); err != nil {
		if errors.Is(err, ErrTruncated) {
			return true, nil
		}
		return false, err
	}
	return false, nil
}
