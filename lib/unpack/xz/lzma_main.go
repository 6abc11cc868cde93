package xz

// The LZMA symbol loop, rewritten for speed from xz-embedded's lzma_main
// and its helpers (rc_bit, rc_bittree, dict_repeat, ...), which Go did not
// inline. The range coder (rnge, code, and the input position) and the
// dictionary live in local variables for the whole loop, so the compiler
// keeps them in registers: the helpers below take and return them by
// value. Each bit decode is normV then decodeV (or bitV in the bit trees),
// functions small enough to be inlined. The decoded stream is identical;
// oracle_test.go compares it with github.com/therootcompany/xz on every
// input.

// normV reads the next input byte if the range got too small.
func normV(rnge, code uint32, in []byte, pos int) (uint32, uint32, int) {
	if rnge < rcTopValue {
		rnge <<= rcShiftBits
		code = code<<rcShiftBits | uint32(in[pos])
		pos++
	}
	return rnge, code, pos
}

// bitV decodes one bit (0 or 1) with the adaptive probability prob,
// which it updates in *p, and also selects the next probability: p0 after
// a 0, p1 after a 1. Tree decoders load the probabilities of both children
// before the bit is known, so the load is not on the critical path
// (range -> bound -> bit -> next bound), where it would add the latency of
// an L1 hit to every bit.
//
// It has no branch: the bits of compressed binaries are too random for
// branch prediction, as XZ Utils' x86-64 decoder also assumes. Both
// outcomes are computed and the 0 one is picked if code < bound; the if
// holds only copies, so the compiler's branchelim pass makes them
// conditional moves. The bit itself is a SETcc: branchelim makes no
// conditional move for a value an address depends on (Go issue 26306),
// and the tree index is one, which would keep the whole if a branch.
func bitV(rnge, code, prob uint32, p *uint16, p0, p1 uint32) (uint32, uint32, uint32, uint32) {
	bound := (rnge >> rcBitModelTotalBits) * prob
	var bit uint32
	if code >= bound {
		bit = 1
	}
	r, c, next := rnge-bound, code-bound, p1
	if code < bound {
		r, c, next = bound, code, p0
	}
	// The new probability is off the critical path, and computing it
	// from the bit takes fewer registers than a third CMOV: prob - prob>>5
	// after a 1, prob + (2048-prob)>>5 = prob - (prob-2017)>>5 (with an
	// arithmetic shift) after a 0.
	t := int32(prob) + int32(bit-1)&(rcMoveBitsRound-rcBitModelTotal)
	*p = uint16(int32(prob) - t>>rcMoveBits)
	return r, c, bit, next
}

// rcMoveBitsRound rounds the probability update after a 0 up.
const rcMoveBitsRound = 1<<rcMoveBits - 1

// decodeV decodes one bit with the adaptive probability *p, as bitV
// (which, called from here, would make decodeV too big to be inlined).
func decodeV(rnge, code uint32, p *uint16) (uint32, uint32, uint32) {
	prob := uint32(*p)
	bound := (rnge >> rcBitModelTotalBits) * prob
	var bit uint32
	if code >= bound {
		bit = 1
	}
	r, c := rnge-bound, code-bound
	if code < bound {
		r, c = bound, code
	}
	t := int32(prob) + int32(bit-1)&(rcMoveBitsRound-rcBitModelTotal)
	*p = uint16(int32(prob) - t>>rcMoveBits)
	return r, c, bit
}

// tree3V, tree6V and tree8V decode a bit tree of 3, 6 and 8 bits from
// the most significant bit; probs is indexed from 1 (probs[0] unused).
// Three copies of one loop, as Go's generics cannot index arrays of
// different lengths: with the length a constant, the loop has no bounds
// checks and needs fewer registers, and with a slice and a limit the
// range and code spilled to the stack on every bit. The last bit is
// decoded apart: its node has no children to load.
func tree3V(rnge, code uint32, in []byte, pos int, probs *[1 << 3]uint16) (uint32, uint32, int, uint32) {
	s, prob := uint32(1), uint32(probs[1])
	var b uint32
	for s < uint32(len(probs))/2 {
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge, code, b, prob = bitV(rnge, code, prob, &probs[s], uint32(probs[2*s]), uint32(probs[2*s+1]))
		s = 2*s + b
	}
	rnge, code, pos = normV(rnge, code, in, pos)
	rnge, code, b, _ = bitV(rnge, code, prob, &probs[s%uint32(len(probs))], 0, 0)
	return rnge, code, pos, 2*s + b - uint32(len(probs))
}

func tree6V(rnge, code uint32, in []byte, pos int, probs *[1 << 6]uint16) (uint32, uint32, int, uint32) {
	s, prob := uint32(1), uint32(probs[1])
	var b uint32
	for s < uint32(len(probs))/2 {
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge, code, b, prob = bitV(rnge, code, prob, &probs[s], uint32(probs[2*s]), uint32(probs[2*s+1]))
		s = 2*s + b
	}
	rnge, code, pos = normV(rnge, code, in, pos)
	rnge, code, b, _ = bitV(rnge, code, prob, &probs[s%uint32(len(probs))], 0, 0)
	return rnge, code, pos, 2*s + b - uint32(len(probs))
}

func tree8V(rnge, code uint32, in []byte, pos int, probs *[1 << 8]uint16) (uint32, uint32, int, uint32) {
	s, prob := uint32(1), uint32(probs[1])
	var b uint32
	for s < uint32(len(probs))/2 {
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge, code, b, prob = bitV(rnge, code, prob, &probs[s], uint32(probs[2*s]), uint32(probs[2*s+1]))
		s = 2*s + b
	}
	rnge, code, pos = normV(rnge, code, in, pos)
	rnge, code, b, _ = bitV(rnge, code, prob, &probs[s%uint32(len(probs))], 0, 0)
	return rnge, code, pos, 2*s + b - uint32(len(probs))
}

// reverseV decodes n bits from the least significant bit and adds them
// to dest; probs is indexed from 0, as in the Go port of xz-embedded.
func reverseV(rnge, code uint32, in []byte, pos int, probs []uint16, dest, n uint32) (uint32, uint32, int, uint32) {
	s := uint32(1)
	var b uint32
	for i := uint32(0); i < n; i++ {
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge, code, b = decodeV(rnge, code, &probs[s-1])
		s = s<<1 | b
		dest += b << i
	}
	return rnge, code, pos, dest
}

// directV appends n bits of probability one half to dest.
func directV(rnge, code uint32, in []byte, pos int, dest, n uint32) (uint32, uint32, int, uint32) {
	for ; n > 0; n-- {
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge >>= 1
		code -= rnge
		mask := 0 - code>>31
		code += rnge & mask
		dest = dest<<1 + mask + 1
	}
	return rnge, code, pos, dest
}

// lengthV decodes a match length (2-273) with the probabilities l.
func lengthV(rnge, code uint32, in []byte, pos int, l *lzmaLenDec, posState uint32) (uint32, uint32, int, uint32) {
	var b, n uint32
	rnge, code, pos = normV(rnge, code, in, pos)
	if rnge, code, b = decodeV(rnge, code, &l.choice); b == 0 {
		rnge, code, pos, n = tree3V(rnge, code, in, pos, &l.low[posState%posStatesMax])
		return rnge, code, pos, matchLenMin + n
	}
	rnge, code, pos = normV(rnge, code, in, pos)
	if rnge, code, b = decodeV(rnge, code, &l.choice2); b == 0 {
		rnge, code, pos, n = tree3V(rnge, code, in, pos, &l.mid[posState%posStatesMax])
		return rnge, code, pos, matchLenMin + lenLowSymbols + n
	}
	rnge, code, pos, n = tree8V(rnge, code, in, pos, &l.high)
	return rnge, code, pos, matchLenMin + lenLowSymbols + lenMidSymbols + n
}

// literalV decodes a literal byte after a literal. It is a function of
// its own (not inlined) so that its loop has the registers to itself.
func literalV(rnge, code uint32, in []byte, pos int, probs *[literalCoderSize]uint16) (uint32, uint32, int, uint32) {
	symbol := uint32(1)
	prob := uint32(probs[1])
	var b uint32
	for symbol < 0x100 {
		rnge, code, pos = normV(rnge, code, in, pos)
		// The children of the last level (0x100-0x1ff) are loaded too,
		// unused: they are inside the array.
		rnge, code, b, prob = bitV(rnge, code, prob, &probs[symbol], uint32(probs[2*symbol]), uint32(probs[2*symbol+1]))
		symbol = 2*symbol + b
	}
	return rnge, code, pos, symbol
}

// matchedLiteralV decodes a literal byte after a match, with the byte at
// distance rep0 (matchByte) as context. Bit i's probability is at
// offset + matchBit + symbol, where matchBit is bit 7-i of matchByte
// moved to 0x100 and offset is 0x100 as long as the decoded bits were
// those of matchByte, 0 after the first that was not. As in literalV the
// probabilities of both possible next bits are loaded ahead; the last bit
// is decoded apart, as its children would be outside the array.
func matchedLiteralV(rnge, code uint32, in []byte, pos int, probs *[literalCoderSize]uint16, matchByte uint32) (uint32, uint32, int, uint32) {
	symbol := uint32(1)
	offset := uint32(0x100)
	matchByte <<= 1 // bit 7-i at 0x100 for bit i
	matchBit := matchByte & offset
	i := offset + matchBit + symbol
	prob := uint32(probs[i])
	var b uint32
	for symbol < 0x80 {
		matchByte <<= 1
		// offset after a 0 and after a 1, and the indexes that follow.
		o0, o1 := offset&^matchBit, offset&matchBit
		i0 := o0 + matchByte&o0 + 2*symbol
		i1 := o1 + matchByte&o1 + 2*symbol + 1
		rnge, code, pos = normV(rnge, code, in, pos)
		rnge, code, b, prob = bitV(rnge, code, prob, &probs[i], uint32(probs[i0]), uint32(probs[i1]))
		symbol = 2*symbol + b
		// offset &= matchBit if b == 1, else offset &= ^matchBit
		offset &= matchBit ^ (b - 1)
		matchBit = matchByte & offset
		i = offset + matchBit + symbol
	}
	rnge, code, pos = normV(rnge, code, in, pos)
	rnge, code, b, _ = bitV(rnge, code, prob, &probs[i], 0, 0)
	return rnge, code, pos, 2*symbol + b
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
	lz := &s.lzma
	in, inLimit := s.rc.in, s.rc.inLimit
	rnge, code, ipos := s.rc.rnge, s.rc.code, s.rc.inPos
	buf := s.dict.buf
	pos, full, limit, end, size := s.dict.pos, s.dict.full, s.dict.limit, s.dict.end, s.dict.size
	state := lz.state
	rep0, rep1, rep2, rep3 := lz.rep0, lz.rep1, lz.rep2, lz.rep3
	ok := true
	/*
	 * Decode more LZMA symbols. One iteration may consume up to
	 * lzmaInRequired - 1 bytes.
	 */
	for pos < limit && ipos <= inLimit {
		posState := pos & lz.posMask
		var b uint32
		rnge, code, ipos = normV(rnge, code, in, ipos)
		rnge, code, b = decodeV(rnge, code, &lz.isMatch[state][posState%posStatesMax])
		if b == 0 {
			// Literal.
			var prev uint32
			if full > 0 {
				prev = uint32(buf[dictIndex(pos, 0, end)])
			}
			// lc <= 4: the masks only spare the code for shifts of 32
			// or more.
			probs := &lz.literal[(prev>>((8-lz.lc)&31)+(pos&lz.literalPosMask)<<(lz.lc&31))%literalCodersMax]
			var symbol uint32
			if state < litStates {
				rnge, code, ipos, symbol = literalV(rnge, code, in, ipos, probs)
			} else {
				var matchByte uint32
				if full > 0 {
					matchByte = uint32(buf[dictIndex(pos, rep0, end)])
				}
				rnge, code, ipos, symbol = matchedLiteralV(rnge, code, in, ipos, probs, matchByte)
			}
			buf[pos] = byte(symbol)
			pos++
			if full < pos {
				full = pos
			}
			state = stateAfterLiteral[state]
			continue
		}
		var length uint32
		rnge, code, ipos = normV(rnge, code, in, ipos)
		if rnge, code, b = decodeV(rnge, code, &lz.isRep[state]); b == 0 {
			// Match: a new distance.
			state = stateAfterMatch[state]
			rep3, rep2, rep1 = rep2, rep1, rep0
			rnge, code, ipos, length = lengthV(rnge, code, in, ipos, &lz.matchLenDec, posState)
			distState := uint32(distStates - 1)
			if length < distStates+matchLenMin {
				distState = length - matchLenMin
			}
			var slot uint32
			rnge, code, ipos, slot = tree6V(rnge, code, in, ipos, &lz.distSlot[distState])
			if slot < distModelStart {
				rep0 = slot
			} else {
				n := slot>>1 - 1
				rep0 = 2 + slot&1
				if slot < distModelEnd {
					rep0 <<= n
					rnge, code, ipos, rep0 = reverseV(rnge, code, in, ipos, lz.distSpecial[rep0-slot:], rep0, n)
				} else {
					rnge, code, ipos, rep0 = directV(rnge, code, in, ipos, rep0, n-alignBits)
					rep0 <<= alignBits
					rnge, code, ipos, rep0 = reverseV(rnge, code, in, ipos, lz.distAlign[1:], rep0, alignBits)
				}
			}
		} else {
			// Repeated match: one of the last four distances.
			rnge, code, ipos = normV(rnge, code, in, ipos)
			if rnge, code, b = decodeV(rnge, code, &lz.isRep0[state]); b == 0 {
				rnge, code, ipos = normV(rnge, code, in, ipos)
				if rnge, code, b = decodeV(rnge, code, &lz.isRep0Long[state][posState%posStatesMax]); b == 0 {
					state = stateAfterShortRep[state]
					length = 1
					goto repeat
				}
			} else {
				var tmp uint32
				rnge, code, ipos = normV(rnge, code, in, ipos)
				if rnge, code, b = decodeV(rnge, code, &lz.isRep1[state]); b == 0 {
					tmp = rep1
				} else {
					rnge, code, ipos = normV(rnge, code, in, ipos)
					if rnge, code, b = decodeV(rnge, code, &lz.isRep2[state]); b == 0 {
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
			rnge, code, ipos, length = lengthV(rnge, code, in, ipos, &lz.repLenDec, posState)
		}
	repeat:
		// Copy length bytes from distance rep0 + 1, up to the limit; the
		// rest stays in lz.len for the next call.
		if rep0 >= full || rep0 >= size {
			ok = false
			break
		}
		left := limit - pos
		if left > length {
			left = length
		}
		length -= left
		pos = copyMatch(buf, pos, dictIndex(pos, rep0, end), left, end)
		if full < pos {
			full = pos
		}
		lz.len = length
	}
	s.dict.pos, s.dict.full = pos, full
	lz.state = state
	lz.rep0, lz.rep1, lz.rep2, lz.rep3 = rep0, rep1, rep2, rep3
	s.rc.rnge, s.rc.code, s.rc.inPos = rnge, code, ipos
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

// copyMatch copies n bytes to buf[pos:] from buf[back:], which is before
// pos in the circular dictionary buf[:end], and returns the new pos.
// Most matches are short and a call of memmove costs more than a few
// byte moves; a long match whose source overlaps its destination, such
// as a run of one byte (distance 1), is copied in chunks that double in
// size instead of byte by byte, as each byte moved would wait for the
// store of the one before.
func copyMatch(buf []byte, pos, back, n, end uint32) uint32 {
	if n <= 8 {
		for ; n > 0; n-- {
			buf[pos] = buf[back]
			pos++
			back++
			if back == end {
				back = 0
			}
		}
		return pos
	}
	if back >= pos {
		// The source wraps around the end of the dictionary (common
		// once the dictionary is full). Its part up to the end is at or
		// after the destination: copy, like a byte loop, reads each
		// byte before it is overwritten.
		k := min(n, end-back)
		copy(buf[pos:pos+k], buf[back:back+k])
		pos += k
		n -= k
		back = 0
	}
	// buf[back:pos] repeats with period pos-back once the first pos-back
	// bytes are copied, so the source can grow with pos.
	for n > 0 {
		c := uint32(copy(buf[pos:pos+n], buf[back:pos]))
		pos += c
		n -= c
	}
	return pos
}
