package xz

import (
	"encoding/binary"
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

// bcj undoes a branch/call/jump filter, which turned the relative
// targets of one architecture's branch instructions into absolute ones
// so that repeated calls of one function compress well. The filter
// converts what it can recognize; the last bytes of the block, too few
// to hold an instruction, stay as they are.
type bcj struct {
	next stage
	id   uint64 // which architecture
	buf  [64 << 10]byte
	done int // buf[done:ready] is filtered and not yet handed out
	// buf[ready:end] is decoded but not filtered: the last bytes of what
	// was decoded, which need the bytes after them.
	ready, end int
	pos        uint32 // the position of buf[ready] in the output, plus the start offset
	mask       uint32 // x86 only: see x86
	eof        bool
}

// bcjAlign is the alignment of each architecture's instructions, which
// the start offset must keep.
var bcjAlign = map[uint64]uint32{filterX86: 1, filterPowerPC: 4, filterIA64: 16, filterARM: 4, filterARMT: 2, filterSPARC: 4}

func (f *bcj) reset(next stage, id uint64, start uint32) {
	f.next, f.id, f.done, f.ready, f.end, f.pos, f.mask, f.eof = next, id, 0, 0, 0, start, 0, false
}

func (f *bcj) read(p []byte) (int, error) {
	for f.done == f.ready {
		if f.eof {
			// The last bytes stay as they are.
			if f.ready == f.end {
				return 0, io.EOF
			}
			f.ready = f.end
			break
		}
		if err := f.fill(); err != nil {
			return 0, err
		}
		k := f.convert(f.buf[:f.end])
		f.ready = k
		f.pos += uint32(k)
	}
	n := copy(p, f.buf[f.done:f.ready])
	f.done += n
	return n, nil
}

// fill moves the unconverted tail to the front of the buffer and reads
// more from the next stage, until the buffer is full or the data ends.
func (f *bcj) fill() error {
	f.end = copy(f.buf[:], f.buf[f.ready:f.end])
	f.done, f.ready = 0, 0
	for f.end < len(f.buf) && !f.eof {
		n, err := f.next.read(f.buf[f.end:])
		f.end += n
		if errors.Is(err, io.EOF) {
			f.eof = true
		} else if err != nil {
			return err
		}
		if n == 0 && err == nil {
			break
		}
	}
	return nil
}

// convert runs the filter's architecture over buf and returns how many
// bytes are final.
func (f *bcj) convert(buf []byte) int {
	switch f.id {
	case filterX86:
		return f.x86(buf)
	case filterPowerPC:
		return powerPC(buf, f.pos)
	case filterIA64:
		return ia64(buf, f.pos)
	case filterARM:
		return arm(buf, f.pos)
	case filterARMT:
		return armThumb(buf, f.pos)
	case filterSPARC:
		return sparc(buf, f.pos)
	}
	return 0
}

// Each architecture's function converts buf (whose first byte is at
// position pos) back and returns how many bytes are final.

// arm: BL, a 24-bit word offset from the instruction's address + 8, in
// the low three bytes of a little-endian word whose top byte is EB.
func arm(buf []byte, pos uint32) int {
	i := 0
	for ; i+4 <= len(buf); i += 4 {
		if buf[i+3] != 0xeb {
			continue
		}
		v := (uint32(buf[i]) | uint32(buf[i+1])<<8 | uint32(buf[i+2])<<16) << 2
		v = (v - (pos + uint32(i) + 8)) >> 2
		buf[i], buf[i+1], buf[i+2] = byte(v), byte(v>>8), byte(v>>16)
	}
	return i
}

// armThumb: BL as two 16-bit halves (F000-F7FF then F800-FFFF), a 22-bit
// halfword offset from the address + 4, on any halfword.
func armThumb(buf []byte, pos uint32) int {
	i := 0
	for ; i+4 <= len(buf); i += 2 {
		if buf[i+1]&0xf8 != 0xf0 || buf[i+3]&0xf8 != 0xf8 {
			continue
		}
		v := (uint32(buf[i+1]&7)<<19 | uint32(buf[i])<<11 | uint32(buf[i+3]&7)<<8 | uint32(buf[i+2])) << 1
		v = (v - (pos + uint32(i) + 4)) >> 1
		buf[i+1] = 0xf0 | byte(v>>19)&7
		buf[i] = byte(v >> 11)
		buf[i+3] = 0xf8 | byte(v>>8)&7
		buf[i+2] = byte(v)
		i += 2
	}
	return i
}

// powerPC: the big-endian "b" with AA=0, LK=1 (opcode 18, low bits 01),
// a 24-bit word offset.
func powerPC(buf []byte, pos uint32) int {
	i := 0
	for ; i+4 <= len(buf); i += 4 {
		v := binary.BigEndian.Uint32(buf[i:])
		if v&0xfc000003 != 0x48000001 {
			continue
		}
		v = (v&0x03fffffc-(pos+uint32(i)))&0x03fffffc | 0x48000001
		binary.BigEndian.PutUint32(buf[i:], v)
	}
	return i
}

// sparc: the big-endian "call" whose 30-bit word offset is a sign
// extension of its low 22 bits (top ten bits 0x100 or 0x1ff).
func sparc(buf []byte, pos uint32) int {
	i := 0
	for ; i+4 <= len(buf); i += 4 {
		v := binary.BigEndian.Uint32(buf[i:])
		if v>>22 != 0x100 && v>>22 != 0x1ff {
			continue
		}
		v = (v<<2 - (pos + uint32(i))) >> 2
		v = (0x40000000 - v&0x400000) | 0x40000000 | v&0x3fffff
		binary.BigEndian.PutUint32(buf[i:], v)
	}
	return i
}

// ia64BranchSlots says, by the 5-bit template of a 16-byte bundle, which
// of its three 41-bit slots hold branch units.
var ia64BranchSlots = [32]uint8{16: 4, 17: 4, 18: 6, 19: 6, 22: 7, 23: 7, 24: 4, 25: 4, 28: 4, 29: 4}

// ia64: in bundles of 16 bytes, the IP-relative branches (opcode 5,
// btype 0) of the branch slots, a 21-bit bundle offset split into 20
// bits and a sign bit.
func ia64(buf []byte, pos uint32) int {
	i := 0
	for ; i+16 <= len(buf); i += 16 {
		slots := ia64BranchSlots[buf[i]&0x1f]
		for slot, bitPos := 0, 5; slot < 3; slot, bitPos = slot+1, bitPos+41 {
			if slots>>slot&1 == 0 {
				continue
			}
			at, shift := i+bitPos>>3, uint(bitPos&7)
			var raw uint64
			for j := 0; j < 6; j++ {
				raw |= uint64(buf[at+j]) << (8 * j)
			}
			norm := raw >> shift
			if (norm>>37)&0xf != 0x5 || (norm>>9)&0x7 != 0 {
				continue
			}
			v := uint32((norm>>13)&0xfffff) | uint32((norm>>36)&1)<<20
			v = (v<<4 - (pos + uint32(i))) >> 4
			norm &^= uint64(0x8fffff) << 13
			norm |= uint64(v&0xfffff) << 13
			norm |= uint64(v&0x100000) << (36 - 20)
			raw = raw&(1<<shift-1) | norm<<shift
			for j := 0; j < 6; j++ {
				buf[at+j] = byte(raw >> (8 * j))
			}
		}
	}
	return i
}

// x86: CALL (E8) and JMP (E9) with a 32-bit offset. A byte E8 or E9
// followed by four bytes whose last is 00 or FF (a near target) is taken
// as an instruction, unless the bytes before it suggest it is the
// operand of an earlier one: f.mask records which of the three bytes
// before the current one were E8/E9 not converted.
func (f *bcj) x86(buf []byte) int {
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
