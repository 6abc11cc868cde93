package xz

import (
	"encoding/binary"
	"errors"
)

// LZMA, as LZMA2 uses it: each chunk starts a fresh range decoder over
// its own compressed bytes and decodes exactly its uncompressed size;
// the probabilities, the state and the last four distances carry over
// from chunk to chunk unless the chunk resets them.

const (
	numStates    = 12
	literalLimit = 7 // states below this follow a literal
	matchMin     = 2 // the shortest match
	slotModelEnd = 14
	alignBits    = 4
)

// Next states, indexed by the current one.
var (
	afterLiteral  = [16]uint8{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}
	afterMatch    = [16]uint8{7, 7, 7, 7, 7, 7, 7, 10, 10, 10, 10, 10}
	afterLongRep  = [16]uint8{8, 8, 8, 8, 8, 8, 8, 11, 11, 11, 11, 11}
	afterShortRep = [16]uint8{9, 9, 9, 9, 9, 9, 9, 11, 11, 11, 11, 11}
)

// lengthModel holds the probabilities of a length coder. Trees are
// indexed from 1.
type lengthModel struct {
	choice, choice2 uint16
	low, mid        [16][8]uint16 // by position state, 3 bits: lengths 2-9 and 10-17
	high            [256]uint16   // 8 bits: lengths 18-273
}

// model holds every adaptive probability. Arrays indexed by state (12)
// or state and position state (12x16) are 16 and 256 long, and literal
// coders (0x300 probabilities) 0x400, so a masked index needs no bounds
// check.
type model struct {
	isMatch    [256]uint16 // state<<4 | posState
	isRep      [16]uint16
	isRepG0    [16]uint16
	isRepG1    [16]uint16
	isRepG2    [16]uint16
	isRep0Long [256]uint16       // state<<4 | posState
	slot       [4][64]uint16     // by length (2, 3, 4, 5+), 6 bits
	special    [115]uint16       // reverse trees of slots 4-13, from 1
	align      [16]uint16        // reverse tree of the low 4 distance bits
	matchLen   lengthModel       // lengths of new matches
	repLen     lengthModel       // lengths of repeated matches
	literal    [16][0x400]uint16 // by (previous byte, position) context
}

// lzma is the decoder's state between chunks.
type lzma struct {
	m                      model
	lc                     uint32 // literal context bits
	lpMask, pbMask         uint32 // literal position and position state masks
	state                  uint32
	rep0, rep1, rep2, rep3 uint32 // the last four distances, minus one
}

// setProps sets lc, lp and pb from an LZMA2 properties byte and resets
// the state. XZ limits lc+lp to 4, which bounds the literal coders.
func (d *lzma) setProps(b byte) error {
	if b >= 9*5*5 {
		return errors.New("LZMA properties byte out of range")
	}
	lc, lp, pb := uint32(b)%9, uint32(b)/9%5, uint32(b)/45
	if lc+lp > 4 {
		return errors.New("LZMA properties have lc+lp above 4")
	}
	d.lc, d.lpMask, d.pbMask = lc, 1<<lp-1, 1<<pb-1
	d.resetState()
	return nil
}

// resetState sets every probability to one half and forgets the state
// and the distances.
func (d *lzma) resetState() {
	m := &d.m
	for _, a := range [][]uint16{m.isMatch[:], m.isRep[:], m.isRepG0[:], m.isRepG1[:], m.isRepG2[:],
		m.isRep0Long[:], m.special[:], m.align[:]} {
		fill(a)
	}
	for i := range m.slot {
		fill(m.slot[i][:])
	}
	for _, l := range []*lengthModel{&m.matchLen, &m.repLen} {
		l.choice, l.choice2 = probInit, probInit
		for i := range l.low {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
	for i := 0; i < 1<<(d.lc+uint32(bitLen(d.lpMask))); i++ {
		fill(m.literal[i][:])
	}
	d.state = 0
	d.rep0, d.rep1, d.rep2, d.rep3 = 0, 0, 0, 0
}

func fill(a []uint16) {
	for i := range a {
		a[i] = probInit
	}
}

func bitLen(m uint32) int {
	n := 0
	for ; m != 0; m >>= 1 {
		n++
	}
	return n
}

var (
	errChunkOverrun  = errors.New("LZMA chunk reads past its compressed size")
	errChunkUnderrun = errors.New("LZMA chunk ends before its compressed size")
	errChunkEnd      = errors.New("LZMA chunk's range decoder does not end at zero")
	errDistance      = errors.New("LZMA match distance reaches before the dictionary")
	errMatchLength   = errors.New("LZMA match runs past the chunk's uncompressed size")
)

// decodeChunk decodes one LZMA chunk: the compressed bytes in[ip:n] into
// size bytes at w.pos, for which w has room. On error, the bytes decoded before it
// are in the window up to w.pos.
//
// This is the whole cost of decompression, hence one function with the
// range decoder, the state, the distances and the window in locals.
// Above gocyclo's 15 on purpose: split, the hot loop's state would leave the registers.
//
//gocyclo:ignore
func (d *lzma) decodeChunk(w *window, in *inputBuf, ip, n, size int) error {
	// The first byte is ignored (encoders write 0); the range decoder
	// starts with the next four.
	code := uint32(in[(ip+1)&(sourceSize-1)])<<24 | uint32(in[(ip+2)&(sourceSize-1)])<<16 | uint32(in[(ip+3)&(sourceSize-1)])<<8 | uint32(in[(ip+4)&(sourceSize-1)])
	rng := uint32(0xFFFFFFFF)
	ip += 5
	buf := w.buf
	pos, end := w.pos, w.pos+size
	lim := pos - w.full // matches may reach back to here (an index before winBase is virtual)
	ringEnd := winBase + w.ring
	dictSize := w.size
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep0, d.rep1, d.rep2, d.rep3
	m := &d.m
	pbMask := d.pbMask
	// The literal coder's index is the top lc bits of the previous byte
	// and the low lp bits of the position above them: the bits
	// lc+lp-1..0 of (pos<<8 | prev) >> (8-lc). The shift is masked so
	// that it needs no test of its count (lc <= 4).
	litShift := (8 - d.lc) & 31
	litMask := (d.lpMask+1)<<d.lc - 1
	var err error
	// The previous byte, for the literal coder's context: kept in a
	// register after a literal rather than loaded back from buf, which
	// would add a store-to-load forwarding to the chain from one literal
	// to the next.
	prev := uint32(buf[pos-1])
	for pos < end {
		if ip > n {
			err = errChunkOverrun
			break
		}
		posState := uint32(pos) & pbMask
		var b uint32
		rng, code, b = bit(rng, code, &m.isMatch[(state<<4|posState)&255])
		rng, code, ip = norm(rng, code, in, ip)
		if b == 0 {
			probs := &m.literal[(uint32(pos)<<8|prev)>>litShift&litMask&15]
			var sym uint32
			if state < literalLimit {
				rng, code, ip, sym = plainLiteral(rng, code, in, ip, probs)
			} else {
				src := pos - int(rep0) - 1
				if src < winBase {
					src += w.ring
				}
				rng, code, ip, sym = matchedLiteral(rng, code, in, ip, probs, uint32(buf[src]))
			}
			buf[pos] = byte(sym)
			prev = sym & 0xff
			pos++
			state = uint32(afterLiteral[state&15])
			continue
		}
		var length uint32
		rng, code, b = bit(rng, code, &m.isRep[state&15])
		rng, code, ip = norm(rng, code, in, ip)
		if b == 0 {
			// A match with a new distance.
			rep3, rep2, rep1 = rep2, rep1, rep0
			rng, code, ip, length = decodeLength(rng, code, in, ip, &m.matchLen, posState)
			state = uint32(afterMatch[state&15])
			var slot uint32
			rng, code, ip, slot = tree6(rng, code, in, ip, &m.slot[min(length, matchMin+3)-matchMin])
			if slot < 4 {
				rep0 = slot
			} else {
				nbits := slot>>1 - 1
				base := (2 | slot&1) << nbits
				if slot < slotModelEnd {
					rng, code, ip, rep0 = reverseBits(rng, code, in, ip, m.special[base-slot:], base, nbits)
				} else {
					rng, code, ip, rep0 = directBits(rng, code, in, ip, 2|slot&1, nbits-alignBits)
					rng, code, ip, rep0 = reverseBits(rng, code, in, ip, m.align[:], rep0<<alignBits, alignBits)
				}
			}
		} else {
			// A match at one of the last four distances.
			rng, code, b = bit(rng, code, &m.isRepG0[state&15])
			rng, code, ip = norm(rng, code, in, ip)
			if b == 0 {
				rng, code, b = bit(rng, code, &m.isRep0Long[(state<<4|posState)&255])
				rng, code, ip = norm(rng, code, in, ip)
				if b == 0 {
					// One byte at distance rep0.
					state = uint32(afterShortRep[state&15])
					if rep0 >= dictSize || int(rep0) >= pos-lim {
						err = errDistance
						break
					}
					src := pos - int(rep0) - 1
					if src < winBase {
						src += w.ring
					}
					prev = uint32(buf[src])
					buf[pos] = byte(prev)
					pos++
					continue
				}
			} else {
				var dist uint32
				rng, code, b = bit(rng, code, &m.isRepG1[state&15])
				rng, code, ip = norm(rng, code, in, ip)
				if b == 0 {
					dist = rep1
				} else {
					rng, code, b = bit(rng, code, &m.isRepG2[state&15])
					rng, code, ip = norm(rng, code, in, ip)
					if b == 0 {
						dist = rep2
					} else {
						dist = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = dist
			}
			rng, code, ip, length = decodeLength(rng, code, in, ip, &m.repLen, posState)
			state = uint32(afterLongRep[state&15])
		}
		if rep0 >= dictSize || int(rep0) >= pos-lim {
			err = errDistance
			break
		}
		if int(length) > end-pos {
			err = errMatchLength
			break
		}
		src := pos - int(rep0) - 1
		if src < winBase {
			src += w.ring
		}
		n := int(length)
		switch {
		case rep0 >= 7 && src+n <= ringEnd:
			// Eight bytes at a time, which is right as long as the
			// source is at least eight bytes behind the destination (or
			// ahead of it, in the previous lap: at least ring-dictSize,
			// 16, bytes ahead). The last step may write up to 7 bytes
			// past the match: bytes not decoded yet, or the ring's
			// oldest, farther than dictSize back (see window), and
			// inside buf (padding).
			for i := 0; i < n; i += 8 {
				binary.LittleEndian.PutUint64(buf[pos+i:], binary.LittleEndian.Uint64(buf[src+i:]))
			}
			pos += n
		case n <= 8 && src+n <= ringEnd:
			// A short match that overlaps itself, byte by byte.
			for i := range n {
				buf[pos+i] = buf[src+i]
			}
			pos += n
		default:
			pos = repeat(buf, pos, src, n, ringEnd)
		}
		prev = uint32(buf[pos-1])
	}
	w.wrote(pos)
	d.state = state
	d.rep0, d.rep1, d.rep2, d.rep3 = rep0, rep1, rep2, rep3
	switch {
	case err != nil:
		return err
	case ip > n:
		return errChunkOverrun
	case ip < n:
		return errChunkUnderrun
	case code != 0:
		return errChunkEnd
	}
	return nil
}

// decodeLength decodes a match length (2-273).
func decodeLength(rng, code uint32, in *inputBuf, ip int, l *lengthModel, posState uint32) (uint32, uint32, int, uint32) {
	var b, v uint32
	rng, code, b = bit(rng, code, &l.choice)
	rng, code, ip = norm(rng, code, in, ip)
	if b == 0 {
		rng, code, ip, v = tree3(rng, code, in, ip, &l.low[posState&15])
		return rng, code, ip, matchMin + v
	}
	rng, code, b = bit(rng, code, &l.choice2)
	rng, code, ip = norm(rng, code, in, ip)
	if b == 0 {
		rng, code, ip, v = tree3(rng, code, in, ip, &l.mid[posState&15])
		return rng, code, ip, matchMin + 8 + v
	}
	rng, code, ip, v = tree8(rng, code, in, ip, &l.high)
	return rng, code, ip, matchMin + 16 + v
}

// plainLiteral decodes a byte after a literal: an 8-bit tree (nodes
// 1-255 of probs). A function of its own, not inlined, so that its loop
// has the registers to itself.
func plainLiteral(rng, code uint32, in *inputBuf, ip int, probs *[0x400]uint16) (uint32, uint32, int, uint32) {
	node, prob := uint32(1), uint32(probs[1])
	var b uint32
	for node < 0x100 {
		// The last level's children (0x100-0x1ff) are loaded for
		// nothing, but they are inside the array.
		rng, code, b, prob = treeBit(rng, code, &probs[node], prob, uint32(probs[2*node]), uint32(probs[2*node+1]))
		rng, code, ip = norm(rng, code, in, ip)
		node = 2*node + b
	}
	return rng, code, ip, node
}

// matchedLiteral decodes a byte after a match, with the byte at the last
// distance (match) as context: as long as the bits decoded are match's,
// bit i's probability is at 0x100 + (bit i of match)*0x100 + node;
// after the first that differs, at node alone. off is 0x100 while they
// agree, else 0.
//
// Both children's indexes are computed before the bit is known, so their
// probabilities load off the critical path.
func matchedLiteral(rng, code uint32, in *inputBuf, ip int, probs *[0x400]uint16, match uint32) (uint32, uint32, int, uint32) {
	node, off := uint32(1), uint32(0x100)
	match <<= 1 // the current bit of match sits at 0x100
	hit := off & match
	prob := uint32(probs[(hit+off+node)&0x3ff])
	var b uint32
	for node < 0x80 {
		next := match << 1
		// off after a 0 is off^hit (match's bit was 0, still agreeing;
		// or it was 1, and no longer); after a 1, hit.
		off0 := off ^ hit
		i0 := off0&next + off0 + 2*node
		i1 := hit&next + hit + 2*node + 1
		i := hit + off + node
		rng, code, b, prob = treeBit(rng, code, &probs[i&0x3ff], prob, uint32(probs[i0&0x3ff]), uint32(probs[i1&0x3ff]))
		rng, code, ip = norm(rng, code, in, ip)
		node = 2*node + b
		// hit after a 1, off^hit after a 0; arithmetic, since a branch
		// on b would be mispredicted half the time.
		off = hit ^ off&(b-1)
		match = next
		hit = off & match
	}
	rng, code, b = bit(rng, code, &probs[(hit+off+node)&0x3ff])
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, 2*node + b
}

// repeat copies n bytes to buf[pos:] from buf[src:] and returns the new
// pos. A source at or after pos is in the ring's previous lap and may
// run into the current one at winBase (ringEnd is the ring's end); a
// source before pos may overlap the destination, as when a byte repeats:
// buf[src:pos] then repeats with period pos-src.
func repeat(buf []byte, pos, src, n, ringEnd int) int {
	if src >= pos {
		k := copy(buf[pos:pos+min(n, ringEnd-src)], buf[src:ringEnd])
		pos += k
		n -= k
		src = winBase
	}
	for n > 0 {
		k := copy(buf[pos:pos+n], buf[src:pos])
		pos += k
		n -= k
	}
	return pos
}
