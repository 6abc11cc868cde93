package xz

import (
	"errors"
	"io"
)

// The filters before LZMA2 in a block's chain. Each stage reads what the
// next one (towards LZMA2) decodes and undoes its own filter.

// stage is one step of a block's filter chain; read returns io.EOF after
// the block's last byte.
type stage interface {
	read(p []byte) (int, error)
}

// Filter IDs (.xz file format, section 5.3).
const (
	filterDelta   = 0x03
	filterX86     = 0x04
	filterPowerPC = 0x05
	filterIA64    = 0x06
	filterARM     = 0x07
	filterARMT    = 0x08
	filterSPARC   = 0x09
	filterARM64   = 0x0a
	filterRISCV   = 0x0b
	filterLZMA2   = 0x21
)

// filterNames names the filters this package knows of, implemented or not.
var filterNames = map[uint64]string{
	filterDelta: "delta", filterX86: "x86 BCJ", filterPowerPC: "PowerPC BCJ", filterIA64: "IA-64 BCJ",
	filterARM: "ARM BCJ", filterARMT: "ARM-Thumb BCJ", filterSPARC: "SPARC BCJ", filterARM64: "ARM64 BCJ",
	filterRISCV: "RISC-V BCJ", filterLZMA2: "LZMA2",
}

// delta undoes the delta filter: each byte was stored as its difference
// from the byte dist before it (0 before the start).
type delta struct {
	next stage
	dist int
	hist [256]byte // the last 256 output bytes, by position mod 256
	pos  uint8
}

func (f *delta) read(p []byte) (int, error) {
	n, err := f.next.read(p)
	pos := f.pos
	back := uint8(f.dist)
	for i := range p[:n] {
		v := p[i] + f.hist[pos-back]
		f.hist[pos] = v
		p[i] = v
		pos++
	}
	f.pos = pos
	return n, err
}

// x86 undoes the x86 BCJ filter, which turned the relative 32-bit
// targets of CALL (E8) and JMP (E9) instructions into absolute ones so
// that repeated calls of one function compress well. A byte E8 or E9
// followed by four bytes whose last is 00 or FF (a near target) is taken
// as an instruction, unless the bytes before it suggest it is the
// operand of an earlier one: mask records which of the three bytes
// before the current one were E8/E9 not converted.
type x86 struct {
	next stage
	buf  [64 << 10]byte
	done int // buf[done:ready] is filtered and not yet handed out
	// buf[ready:end] is decoded but not filtered: the last four bytes
	// of what was decoded, which need the bytes after them.
	ready, end int
	pos        uint32 // the position of buf[ready] in the output, plus the start offset
	mask       uint32
	eof        bool
}

func (f *x86) read(p []byte) (int, error) {
	for f.done == f.ready {
		if f.eof {
			// The last bytes stay as they are.
			if f.ready == f.end {
				return 0, io.EOF
			}
			f.ready = f.end
			break
		}
		// Move the unfiltered tail to the front and decode more.
		f.end = copy(f.buf[:], f.buf[f.ready:f.end])
		f.done, f.ready = 0, 0
		for f.end < len(f.buf) && !f.eof {
			n, err := f.next.read(f.buf[f.end:])
			f.end += n
			if errors.Is(err, io.EOF) {
				f.eof = true
			} else if err != nil {
				return 0, err
			}
			if n == 0 && err == nil {
				break
			}
		}
		k := f.filter(f.buf[:f.end])
		f.ready = k
		f.pos += uint32(k)
	}
	n := copy(p, f.buf[f.done:f.ready])
	f.done += n
	return n, nil
}

// filter converts buf (whose first byte is at f.pos) back and returns
// how many bytes are final: those up to the last one with four bytes
// after it, or past the last instruction converted.
func (f *x86) filter(buf []byte) int {
	if len(buf) < 5 {
		return 0
	}
	// allowed and bitIndex are indexed by the 3-bit mask of recent
	// unconverted E8/E9 bytes: whether an instruction may start here,
	// and which byte of a converted target to test again.
	allowed := [8]bool{true, true, true, false, true, false, false, false}
	bitIndex := [8]uint32{0, 1, 2, 2, 3, 3, 3, 3}
	mask := f.mask
	last := -1 // the previous E8/E9, relative to buf; -1: at most one byte before
	i := 0
	for ; i < len(buf)-4; i++ {
		if buf[i]&0xfe != 0xe8 {
			continue
		}
		gap := i - last
		last = i
		if gap > 3 {
			mask = 0
		} else {
			mask = (mask << (gap - 1)) & 7
			if mask != 0 && (!allowed[mask] || nearByte(buf[i+4-int(bitIndex[mask])])) {
				mask = mask<<1 | 1
				continue
			}
		}
		if !nearByte(buf[i+4]) {
			mask = mask<<1 | 1
			continue
		}
		v := uint32(buf[i+1]) | uint32(buf[i+2])<<8 | uint32(buf[i+3])<<16 | uint32(buf[i+4])<<24
		var t uint32
		for {
			t = v - (f.pos + uint32(i) + 5)
			if mask == 0 {
				break
			}
			sh := 24 - bitIndex[mask]*8
			if !nearByte(byte(t >> sh)) {
				break
			}
			v = t ^ (1<<(sh+8) - 1)
		}
		// Bits 25-31 repeat bit 24.
		t &= 0x01ffffff
		t |= -(t & 0x01000000)
		buf[i+1], buf[i+2], buf[i+3], buf[i+4] = byte(t), byte(t>>8), byte(t>>16), byte(t>>24)
		i += 4
	}
	gap := i - last
	if gap > 3 {
		f.mask = 0
	} else {
		f.mask = mask << (gap - 1)
	}
	return i
}

// nearByte reports whether b is the top byte of a near 32-bit offset.
func nearByte(b byte) bool { return b == 0 || b == 0xff }
