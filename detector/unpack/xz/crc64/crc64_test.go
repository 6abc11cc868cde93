package crc64

import (
	stdcrc64 "hash/crc64"
	"math/rand/v2"
	"testing"
)

var ecma = stdcrc64.MakeTable(stdcrc64.ECMA)

func want(crc uint64, p []byte) uint64 { return stdcrc64.Update(crc, ecma, p) }

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestKnownValues: the CRC-64/XZ check value and a few strings.
func TestKnownValues(t *testing.T) {
	if got := Checksum([]byte("123456789")); got != 0x995DC9BBDF1939FA {
		t.Errorf("check value %#x, want 0x995dc9bbdf1939fa", got)
	}
	for _, s := range []string{"", "a", "abc", "The quick brown fox jumps over the lazy dog"} {
		if got, w := Checksum([]byte(s)), want(0, []byte(s)); got != w {
			t.Errorf("%q: %#x, want %#x", s, got, w)
		}
	}
}

// TestConstants: xPowModP agrees with the table: the raw CRC (register
// starting at zero, no final inversion) of the message x^n, n >= 64, is
// rev64(x^n mod P).
func TestConstants(t *testing.T) {
	rev := func(v uint64) uint64 {
		var r uint64
		for i := 0; i < 64; i++ {
			r |= (v >> i & 1) << (63 - i)
		}
		return r
	}
	for _, n := range []int{64, 127, 191, 511, 575, 600} {
		// The message x^(n-64): one bit set in nbytes bytes, so that
		// its CRC, the message times x^64 mod P, is x^n mod P.
		m := n - 64
		nbytes := m/8 + 1
		msg := make([]byte, nbytes)
		// Bit k of the message (k = 0 first) has degree 8*nbytes-1-k.
		k := 8*nbytes - 1 - m
		msg[k/8] |= 1 << (k % 8)
		raw := ^stdcrc64.Update(^uint64(0), ecma, msg)
		if got := rev(xPowModP(n)); got != raw {
			t.Errorf("x^%d mod P: %#x, table says %#x", n, got, raw)
		}
	}
}

// TestEveryLength: every length 0..1024 at every start offset 0..15,
// with several initial CRCs.
func TestEveryLength(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := randBytes(r, 1024+16)
	for off := 0; off < 16; off++ {
		for n := 0; n <= 1024; n++ {
			p := buf[off : off+n]
			for _, c := range []uint64{0, 1, ^uint64(0), 0x0123456789abcdef} {
				if got, w := Update(c, p), want(c, p); got != w {
					t.Fatalf("off %d len %d crc %#x: %#x, want %#x", off, n, c, got, w)
				}
			}
		}
	}
}

// TestLarge: long buffers, including ones with a ragged tail.
func TestLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := randBytes(r, 1<<20+100)
	for _, n := range []int{1 << 20, 1<<20 + 100, 65536 + 15, 100003} {
		if got, w := Update(7, buf[:n]), want(7, buf[:n]); got != w {
			t.Errorf("len %d: %#x, want %#x", n, got, w)
		}
	}
}

// TestIncremental: a buffer written in random pieces through New gives
// hash/crc64's sum.
func TestIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 200; iter++ {
		buf := randBytes(r, r.IntN(5000))
		h, w := New(), stdcrc64.New(ecma)
		rest := buf
		for len(rest) > 0 {
			n := r.IntN(len(rest) + 1)
			_, _ = h.Write(rest[:n])
			_, _ = w.Write(rest[:n])
			rest = rest[n:]
		}
		if h.Sum64() != w.Sum64() || string(h.Sum([]byte("x"))) != string(w.Sum([]byte("x"))) {
			t.Fatalf("iter %d: %#x, want %#x", iter, h.Sum64(), w.Sum64())
		}
		if h.Size() != w.Size() || h.BlockSize() != w.BlockSize() {
			t.Fatal("Size or BlockSize differ from hash/crc64")
		}
		h.Reset()
		if h.Sum64() != 0 {
			t.Fatal("Reset did not clear")
		}
	}
}

// FuzzUpdate: any bytes, any initial CRC, any split point and start
// offset give hash/crc64's result.
func FuzzUpdate(f *testing.F) {
	f.Add(uint64(0), []byte("123456789"), uint16(3), uint8(0))
	f.Add(^uint64(0), make([]byte, 200), uint16(64), uint8(5))
	f.Fuzz(func(t *testing.T, crc uint64, data []byte, split uint16, off uint8) {
		if o := int(off % 16); o < len(data) {
			data = data[o:]
		}
		if got, w := Update(crc, data), want(crc, data); got != w {
			t.Fatalf("len %d crc %#x: %#x, want %#x", len(data), crc, got, w)
		}
		s := int(split) % (len(data) + 1)
		if got, w := Update(Update(crc, data[:s]), data[s:]), want(crc, data); got != w {
			t.Fatalf("split %d of %d: %#x, want %#x", s, len(data), got, w)
		}
	})
}

func benchmark(b *testing.B, n int, f func(uint64, []byte) uint64) {
	buf := randBytes(rand.New(rand.NewPCG(7, 8)), n)
	b.SetBytes(int64(n))
	b.ResetTimer()
	var c uint64
	for i := 0; i < b.N; i++ {
		c = f(c, buf)
	}
}

func BenchmarkUpdate(b *testing.B) {
	for _, n := range []struct {
		name string
		n    int
	}{{"1MiB", 1 << 20}, {"8KiB", 8 << 10}, {"256B", 256}} {
		b.Run("xzcrc64/"+n.name, func(b *testing.B) { benchmark(b, n.n, Update) })
		b.Run("hashcrc64/"+n.name, func(b *testing.B) { benchmark(b, n.n, want) })
	}
}

// clmul is a carry-less 64×64→128-bit multiplication in software.
func clmul(a, b uint64) (lo, hi uint64) {
	for i := 0; i < 64; i++ {
		if b>>i&1 != 0 {
			lo ^= a << i
			if i > 0 {
				hi ^= a >> (64 - i)
			}
		}
	}
	return lo, hi
}

// TestFoldModel runs the folding of foldCLMUL in Go, with software
// carry-less multiplication and foldConstants, on every architecture:
// the constants and the method, apart from the assembly.
func TestFoldModel(t *testing.T) {
	k := foldConstants()
	fold := func(x [2]uint64, k0, k1 uint64) [2]uint64 {
		alo, ahi := clmul(x[0], k0)
		blo, bhi := clmul(x[1], k1)
		return [2]uint64{alo ^ blo, ahi ^ bhi}
	}
	le := func(b []byte) [2]uint64 {
		var v [2]uint64
		for i := 0; i < 16; i++ {
			v[i/8] |= uint64(b[i]) << (8 * (i % 8))
		}
		return v
	}
	xor := func(a, b [2]uint64) [2]uint64 { return [2]uint64{a[0] ^ b[0], a[1] ^ b[1]} }
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{64, 80, 128, 192, 208, 1024} {
		p := randBytes(r, n)
		crc := r.Uint64()
		var x [4][2]uint64
		for i := range x {
			x[i] = le(p[16*i:])
		}
		x[0][0] ^= ^crc
		q := p[64:]
		for ; len(q) >= 64; q = q[64:] {
			for i := range x {
				x[i] = xor(fold(x[i], k[0], k[1]), le(q[16*i:]))
			}
		}
		v := x[0]
		for i := 1; i < 4; i++ {
			v = xor(fold(v, k[2], k[3]), x[i])
		}
		for ; len(q) >= 16; q = q[16:] {
			v = xor(fold(v, k[2], k[3]), le(q))
		}
		var b [16]byte
		for i := range b {
			b[i] = byte(v[i/8] >> (8 * (i % 8)))
		}
		if got, w := stdcrc64.Update(^uint64(0), ecma, b[:]), want(crc, p); got != w {
			t.Errorf("len %d: model gives %#x, want %#x", n, got, w)
		}
	}
}
