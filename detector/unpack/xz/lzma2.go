package xz

import (
	"fmt"
	"io"
)

// lzma2 decodes a block's LZMA2 data, a sequence of chunks, each
// starting with a control byte:
//
//	0x00       the end of the data
//	0x01       a dictionary reset, then an uncompressed chunk
//	0x02       an uncompressed chunk
//	0x03-0x7f  invalid
//	0x80-0xff  an LZMA chunk; bits 5-6 say what it resets:
//	           0x80 nothing, 0xa0 the state, 0xc0 the state and new
//	           properties, 0xe0 the dictionary too. Bits 0-4 are bits
//	           16-20 of its uncompressed size minus one.
//
// Then come the uncompressed size minus one (LZMA chunks: low 16 bits,
// big-endian), the compressed size minus one (16 bits, big-endian) and,
// after 0xc0 and 0xe0, the LZMA properties byte. The first chunk must
// reset the dictionary, and the first LZMA chunk after a dictionary
// reset must set properties.
//
// Each chunk is decoded whole into the window, then handed out.
type lzma2 struct {
	src           *source
	win           window
	lz            lzma
	needDictReset bool
	needProps     bool
	done          bool
	err           error // the error after the window's data is handed out
}

// lzma2DictSize decodes the LZMA2 filter's property, the dictionary
// size: 2 or 3 times a power of two, from 4 KiB to 3 GiB, or 4 GiB - 1.
func lzma2DictSize(p byte) (uint32, error) {
	switch {
	case p > 40:
		return 0, fmt.Errorf("%w: LZMA2 dictionary size property %d (above 40)", ErrUnsupported, p)
	case p == 40:
		return 0xFFFFFFFF, nil
	}
	return (2 | uint32(p)&1) << (p/2 + 11), nil
}

func (d *lzma2) reset(src *source, dictSize uint32) {
	d.src = src
	d.win.init(dictSize)
	d.needDictReset, d.needProps, d.done, d.err = true, true, false, nil
}

// read hands out decoded bytes, decoding the next chunk when the window
// has none left; io.EOF after the end marker.
func (d *lzma2) read(p []byte) (int, error) {
	for d.win.out == d.win.pos {
		if d.err != nil {
			return 0, d.err
		}
		if d.done {
			return 0, io.EOF
		}
		d.err = d.chunk()
	}
	n := copy(p, d.win.avail())
	d.win.out += n
	return n, nil
}

// chunk decodes the next chunk into the window.
func (d *lzma2) chunk() error {
	at := d.src.taken
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: LZMA2 chunk at byte %d: %s", ErrCorrupt, at, fmt.Sprintf(format, args...))
	}
	h, err := d.src.take(1)
	if err != nil {
		return err
	}
	control := h[0]
	switch {
	case control == 0x00:
		d.done = true
		return nil
	case control == 0x01 || control >= 0xe0:
		d.win.reset()
		d.needDictReset, d.needProps = false, true
	case d.needDictReset:
		return fail("control byte 0x%02x, but the first chunk must reset the dictionary", control)
	case control > 0x02 && control < 0x80:
		return fail("invalid control byte 0x%02x", control)
	}
	if control < 0x80 {
		return d.storedChunk()
	}
	return d.lzmaChunk(control, fail)
}

// storedChunk copies an uncompressed chunk (its size, then its bytes)
// into the dictionary as it is.
func (d *lzma2) storedChunk() error {
	h, err := d.src.take(2)
	if err != nil {
		return err
	}
	size := int(h[0])<<8 | int(h[1]) + 1
	data, err := d.src.take(size)
	if err != nil {
		return err
	}
	d.win.room(size)
	copy(d.win.buf[d.win.pos:], data)
	d.win.wrote(d.win.pos + size)
	return nil
}

// lzmaChunk decodes an LZMA chunk of this control byte: the rest of its
// header (sizes, new properties from 0xc0 on), then its data.
func (d *lzma2) lzmaChunk(control byte, fail func(format string, args ...any) error) error {
	hlen := 4
	if control >= 0xc0 {
		hlen = 5
	}
	h, err := d.src.take(hlen)
	if err != nil {
		return err
	}
	size := int(control&0x1f)<<16 | int(h[0])<<8 | int(h[1]) + 1
	csize := int(h[2])<<8 | int(h[3]) + 1
	switch {
	case control >= 0xc0:
		if err := d.lz.setProps(h[4]); err != nil {
			return fail("%v", err)
		}
		d.needProps = false
	case d.needProps:
		return fail("control byte 0x%02x, but this LZMA chunk must set new properties", control)
	case control >= 0xa0:
		d.lz.resetState()
	}
	if csize < 5 {
		return fail("compressed size %d, less than the range decoder's 5 first bytes", csize)
	}
	in, start, err := d.src.chunk(csize)
	if err != nil {
		return err
	}
	d.win.room(size)
	err = d.lz.decodeChunk(&d.win, in, start, start+csize, size)
	d.src.skip(csize)
	if err != nil {
		return fail("%v", err)
	}
	return nil
}
