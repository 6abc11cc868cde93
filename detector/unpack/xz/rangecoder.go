package xz

// The range decoder, as small functions the compiler inlines into the
// LZMA loop: the range, the code and the input position are passed in
// and returned, so they stay in registers for the whole loop instead of
// living in a struct in memory.
//
// A bit is decoded without a branch. The bits of compressed machine code
// are close to random, so a branch on each would be mispredicted about
// half the time; instead both outcomes are computed and the right one
// picked with conditional moves (the ifs below hold only copies, which
// the compiler turns into CMOVs).
//
// The decoder renormalizes after each bit, so the input it has taken
// when a chunk ends is exactly the chunk's compressed size in a valid
// stream.

const (
	probBits  = 11
	probOne   = 1 << probBits // probabilities are in 1/2048ths
	probInit  = probOne / 2
	adaptBits = 5
	rangeTop  = 1 << 24
)

// adapt is the new probability of a 0 after decoding b: it moves 1/32 of
// the way towards 0 (b == 1) or towards 2048 (b == 0). Towards 2048 it
// rounds as (2048-p)>>5 does, which with an arithmetic shift is
// p - (p-2017)>>5; b-1 is all ones after a 0 and selects the 2017.
func adapt(prob, b uint32) uint16 {
	p := int32(prob)
	return uint16(p - (p-int32(b-1)&(probOne-(1<<adaptBits-1)))>>adaptBits)
}

// bit decodes one bit of probability *p. The caller renormalizes (norm)
// after it: the two together are too big for the compiler to inline as
// one function.
func bit(rng, code uint32, p *uint16) (uint32, uint32, uint32) {
	prob := uint32(*p)
	bound := (rng >> probBits) * prob
	var b uint32
	if code >= bound {
		b = 1
	}
	r, c := rng-bound, code-bound
	if code < bound {
		r, c = bound, code
	}
	*p = adapt(prob, b)
	return r, c, b
}

// norm shifts in the next input byte when the range falls below 2^24.
func norm(rng, code uint32, in *inputBuf, ip int) (uint32, uint32, int) {
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip&(sourceSize-1)])
		ip++
	}
	return rng, code, ip
}

// treeBit decodes a bit in a bit tree whose probability prob (at *p) is
// already loaded, and returns the probability of the next node too:
// next0 after a 0, next1 after a 1. The caller loads both children
// before the bit is known, so no load waits on the bit: on the chain
// range -> bound -> bit -> next bound, a load would add its latency to
// every bit.
func treeBit(rng, code uint32, p *uint16, prob, next0, next1 uint32) (uint32, uint32, uint32, uint32) {
	bound := (rng >> probBits) * prob
	var b uint32
	if code >= bound {
		b = 1
	}
	r, c, next := rng-bound, code-bound, next1
	if code < bound {
		r, c, next = bound, code, next0
	}
	*p = adapt(prob, b)
	return r, c, b, next
}

// directBits decodes n bits of probability one half, most significant
// first, appended to v.
func directBits(rng, code uint32, in *inputBuf, ip int, v, n uint32) (uint32, uint32, int, uint32) {
	for ; n > 0; n-- {
		// The bit is the sign of code-range, not code >= range: the two
		// differ on a corrupt stream whose code exceeds its range, and
		// the sign is what the reference decoders test.
		rng >>= 1
		code -= rng
		neg := 0 - code>>31 // all ones for a 0
		code += rng & neg
		v = v<<1 | (neg + 1)
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip&(sourceSize-1)])
			ip++
		}
	}
	return rng, code, ip, v
}

// reverseBits decodes n bits with the bit tree probs (nodes from 1),
// least significant first, and adds them to v.
func reverseBits(rng, code uint32, in *inputBuf, ip int, probs []uint16, v, n uint32) (uint32, uint32, int, uint32) {
	node := uint32(1)
	for i := uint32(0); i < n; i++ {
		var b uint32
		rng, code, b = bit(rng, code, &probs[node])
		rng, code, ip = norm(rng, code, in, ip)
		node = node<<1 | b
		v |= b << i
	}
	return rng, code, ip, v
}

// tree3, tree6 and tree8 decode a 3-, 6- and 8-bit symbol with a bit
// tree, most significant bit first (nodes from 1; node 0 is unused).
// The array sizes are constants, so the indexes need no bounds checks;
// the last bit's node has no children to load.
func tree3(rng, code uint32, in *inputBuf, ip int, t *[8]uint16) (uint32, uint32, int, uint32) {
	node, prob := uint32(1), uint32(t[1])
	var b uint32
	for node < 4 {
		rng, code, b, prob = treeBit(rng, code, &t[node], prob, uint32(t[2*node]), uint32(t[2*node+1]))
		rng, code, ip = norm(rng, code, in, ip)
		node = 2*node + b
	}
	rng, code, b = bit(rng, code, &t[node&7])
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, (2*node + b) - 8
}

func tree6(rng, code uint32, in *inputBuf, ip int, t *[64]uint16) (uint32, uint32, int, uint32) {
	node, prob := uint32(1), uint32(t[1])
	var b uint32
	for node < 32 {
		rng, code, b, prob = treeBit(rng, code, &t[node], prob, uint32(t[2*node]), uint32(t[2*node+1]))
		rng, code, ip = norm(rng, code, in, ip)
		node = 2*node + b
	}
	rng, code, b = bit(rng, code, &t[node&63])
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, (2*node + b) - 64
}

func tree8(rng, code uint32, in *inputBuf, ip int, t *[256]uint16) (uint32, uint32, int, uint32) {
	node, prob := uint32(1), uint32(t[1])
	var b uint32
	for node < 128 {
		rng, code, b, prob = treeBit(rng, code, &t[node], prob, uint32(t[2*node]), uint32(t[2*node+1]))
		rng, code, ip = norm(rng, code, in, ip)
		node = 2*node + b
	}
	rng, code, b = bit(rng, code, &t[node&255])
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, (2*node + b) - 256
}
