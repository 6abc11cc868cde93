package xz

// The LZMA symbol loop, rewritten for speed from xz-embedded's lzma_main
// and its helpers (rc_bit, rc_bittree, dict_repeat, ...), which Go did not
// inline: the range coder and the dictionary live in locals for the whole
// loop, every bit decode is inlined, and the bit trees are unrolled loops
// over fixed-size probability arrays. The decoded stream is identical;
// lib/archive's tests compare it with github.com/therootcompany/xz.

// rangeRegs is the range decoder's state while lzmaMain runs.
type rangeRegs struct {
	rnge, code uint32
	pos        int
	in         []byte
}

// norm reads the next input byte if the range got too small. Every bit
// decode is norm then decode; they are two functions so that each is
// cheap enough for the compiler to inline.
func (r *rangeRegs) norm() {
	if r.rnge < rcTopValue {
		r.rnge <<= rcShiftBits
		r.code = r.code<<rcShiftBits | uint32(r.in[r.pos])
		r.pos++
	}
}

// decode decodes one bit with the adaptive probability *p (0 or 1).
func (r *rangeRegs) decode(p *uint16) uint32 {
	prob := *p
	bound := (r.rnge >> rcBitModelTotalBits) * uint32(prob)
	if r.code < bound {
		r.rnge = bound
		*p = prob + (rcBitModelTotal-prob)>>rcMoveBits
		return 0
	}
	r.rnge -= bound
	r.code -= bound
	*p = prob - prob>>rcMoveBits
	return 1
}

// normV and decodeV are norm and decode on values instead of a struct,
// for the literal loop: its range coder state then lives in registers.
func normV(rnge, code uint32, in []byte, pos int) (uint32, uint32, int) {
	if rnge < rcTopValue {
		rnge <<= rcShiftBits
		code = code<<rcShiftBits | uint32(in[pos])
		pos++
	}
	return rnge, code, pos
}

func decodeV(rnge, code uint32, p *uint16) (uint32, uint32, uint32) {
	prob := *p
	bound := (rnge >> rcBitModelTotalBits) * uint32(prob)
	if code < bound {
		*p = prob + (rcBitModelTotal-prob)>>rcMoveBits
		return bound, code, 0
	}
	*p = prob - prob>>rcMoveBits
	return rnge - bound, code - bound, 1
}

// bit is norm then decode, for the less hot call sites.
func (r *rangeRegs) bit(p *uint16) uint32 {
	r.norm()
	return r.decode(p)
}

// tree3 decodes a 3-bit tree (match lengths 2-17); probs[0] is unused.
func (r *rangeRegs) tree3(probs *[lenLowSymbols]uint16) uint32 {
	s := uint32(1)
	s = s<<1 | r.bit(&probs[s&7])
	s = s<<1 | r.bit(&probs[s&7])
	s = s<<1 | r.bit(&probs[s&7])
	return s - lenLowSymbols
}

// tree decodes an n-bit tree from the most significant bit; probs is
// indexed from 1 as in xz-embedded (probs[0] unused).
func (r *rangeRegs) tree(probs []uint16, limit uint32) uint32 {
	s := uint32(1)
	for s < limit {
		r.norm()
		s = s<<1 | r.decode(&probs[s])
	}
	return s - limit
}

// reverse decodes n bits from the least significant bit into *dest;
// probs is indexed from 0, as in the Go port of xz-embedded.
func (r *rangeRegs) reverse(probs []uint16, dest *uint32, n uint32) {
	s := uint32(1)
	for i := uint32(0); i < n; i++ {
		b := r.bit(&probs[s-1])
		s = s<<1 | b
		*dest += b << i
	}
}

// direct decodes n bits of probability one half into *dest.
func (r *rangeRegs) direct(dest *uint32, n uint32) {
	for ; n > 0; n-- {
		if r.rnge < rcTopValue {
			r.rnge <<= rcShiftBits
			r.code = r.code<<rcShiftBits | uint32(r.in[r.pos])
			r.pos++
		}
		r.rnge >>= 1
		r.code -= r.rnge
		mask := 0 - r.code>>31
		r.code += r.rnge & mask
		*dest = *dest<<1 + mask + 1
	}
}

// length decodes a match length (2-273) with the probabilities l.
func (r *rangeRegs) length(l *lzmaLenDec, posState uint32) uint32 {
	if r.bit(&l.choice) == 0 {
		return matchLenMin + r.tree3(&l.low[posState&(posStatesMax-1)])
	}
	if r.bit(&l.choice2) == 0 {
		return matchLenMin + lenLowSymbols + r.tree3(&l.mid[posState&(posStatesMax-1)])
	}
	return matchLenMin + lenLowSymbols + lenMidSymbols + r.tree(l.high[:], lenHighSymbols)
}

// Next states after a literal, a match, a long and a short repeat.
var (
	stateAfterLiteral  = [states]lzmaState{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}
	stateAfterMatch    = [states]lzmaState{7, 7, 7, 7, 7, 7, 7, 10, 10, 10, 10, 10}
	stateAfterLongRep  = [states]lzmaState{8, 8, 8, 8, 8, 8, 8, 11, 11, 11, 11, 11}
	stateAfterShortRep = [states]lzmaState{9, 9, 9, 9, 9, 9, 9, 11, 11, 11, 11, 11}
)

/* LZMA decoder core */
func lzmaMain(s *xzDecLZMA2) bool {
	/*
	 * If the dictionary was reached during the previous call, try to
	 * finish the possibly pending repeat in the dictionary.
	 */
	if dictHasSpace(&s.dict) && s.lzma.len > 0 {
		dictRepeat(&s.dict, &s.lzma.len, s.lzma.rep0)
	}
	rc := rangeRegs{rnge: s.rc.rnge, code: s.rc.code, pos: s.rc.inPos, in: s.rc.in}
	inLimit := s.rc.inLimit
	lz := &s.lzma
	buf := s.dict.buf
	pos, full, limit, end, size := s.dict.pos, s.dict.full, s.dict.limit, s.dict.end, s.dict.size
	state := lz.state
	rep0, rep1, rep2, rep3 := lz.rep0, lz.rep1, lz.rep2, lz.rep3
	ok := true
	/*
	 * Decode more LZMA symbols. One iteration may consume up to
	 * lzmaInRequired - 1 bytes.
	 */
	in := rc.in
	rnge, code, ipos := rc.rnge, rc.code, rc.pos
	for pos < limit && ipos <= inLimit {
		posState := pos & lz.posMask & (posStatesMax - 1)
		var b uint32
		rnge, code, ipos = normV(rnge, code, in, ipos)
		rnge, code, b = decodeV(rnge, code, &lz.isMatch[state][posState])
		if b == 0 {
			// Literal.
			var prev uint32
			if full > 0 {
				prev = uint32(buf[dictIndex(pos, 0, end)])
			}
			probs := &lz.literal[(prev>>(8-lz.lc)+(pos&lz.literalPosMask)<<lz.lc)%literalCodersMax]
			symbol := uint32(1)
			if state < litStates {
				for symbol < 0x100 {
					rnge, code, ipos = normV(rnge, code, in, ipos)
					rnge, code, b = decodeV(rnge, code, &probs[symbol])
					symbol = symbol<<1 | b
				}
			} else {
				var matchByte uint32
				if full > 0 {
					matchByte = uint32(buf[dictIndex(pos, rep0, end)]) << 1
				}
				offset := uint32(0x100)
				for symbol < 0x100 {
					matchBit := matchByte & offset
					matchByte <<= 1
					rnge, code, ipos = normV(rnge, code, in, ipos)
					rnge, code, b = decodeV(rnge, code, &probs[offset+matchBit+symbol])
					symbol = symbol<<1 | b
					// offset &= matchBit if b == 1, else offset &= ^matchBit
					offset &= matchBit ^ (b - 1)
				}
			}
			buf[pos] = byte(symbol)
			pos++
			if full < pos {
				full = pos
			}
			state = stateAfterLiteral[state]
			continue
		}
		// Matches: the range coder state goes through rc.
		rc.rnge, rc.code, rc.pos = rnge, code, ipos
		var length uint32
		rc.norm()
		if rc.decode(&lz.isRep[state]) == 0 {
			// Match: a new distance.
			state = stateAfterMatch[state]
			rep3, rep2, rep1 = rep2, rep1, rep0
			length = rc.length(&lz.matchLenDec, posState)
			distState := uint32(distStates - 1)
			if length < distStates+matchLenMin {
				distState = length - matchLenMin
			}
			slot := rc.tree(lz.distSlot[distState][:], distSlots)
			if slot < distModelStart {
				rep0 = slot
			} else {
				n := slot>>1 - 1
				rep0 = 2 + slot&1
				if slot < distModelEnd {
					rep0 <<= n
					rc.reverse(lz.distSpecial[rep0-slot:], &rep0, n)
				} else {
					rc.direct(&rep0, n-alignBits)
					rep0 <<= alignBits
					rc.reverse(lz.distAlign[1:], &rep0, alignBits)
				}
			}
		} else {
			// Repeated match: one of the last four distances.
			if rc.bit(&lz.isRep0[state]) == 0 {
				if rc.bit(&lz.isRep0Long[state][posState]) == 0 {
					state = stateAfterShortRep[state]
					length = 1
					goto repeat
				}
			} else {
				var tmp uint32
				if rc.bit(&lz.isRep1[state]) == 0 {
					tmp = rep1
				} else {
					if rc.bit(&lz.isRep2[state]) == 0 {
						tmp = rep2
					} else {
						tmp = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = tmp
			}
			state = stateAfterLongRep[state]
			length = rc.length(&lz.repLenDec, posState)
		}
	repeat:
		// Copy length bytes from distance rep0 + 1, up to the limit; the
		// rest stays in lz.len for the next call.
		if rep0 >= full || rep0 >= size {
			ok = false
			rnge, code, ipos = rc.rnge, rc.code, rc.pos
			break
		}
		left := limit - pos
		if left > length {
			left = length
		}
		length -= left
		back := dictIndex(pos, rep0, end)
		if back < pos && pos-back >= left {
			// Source and destination don't overlap: one copy.
			copy(buf[pos:pos+left], buf[back:back+left])
			pos += left
		} else {
			for ; left > 0; left-- {
				buf[pos] = buf[back]
				pos++
				back++
				if back == end {
					back = 0
				}
			}
		}
		if full < pos {
			full = pos
		}
		lz.len = length
		rnge, code, ipos = rc.rnge, rc.code, rc.pos
	}
	rc.rnge, rc.code, rc.pos = rnge, code, ipos
	s.dict.pos, s.dict.full = pos, full
	lz.state = state
	lz.rep0, lz.rep1, lz.rep2, lz.rep3 = rep0, rep1, rep2, rep3
	s.rc.rnge, s.rc.code, s.rc.inPos = rc.rnge, rc.code, rc.pos
	if !ok {
		return false
	}
	/*
	 * Having the range decoder always normalized when we are outside
	 * this function makes it easier to correctly handle end of the chunk.
	 */
	rcNormalize(&s.rc)
	return true
}

// dictIndex is the position in the circular dictionary of the byte
// dist+1 bytes before pos.
func dictIndex(pos, dist, end uint32) uint32 {
	back := pos - dist - 1
	if dist >= pos {
		back += end
	}
	return back
}
