package crc64

import (
	"encoding/binary"
	stdcrc64 "hash/crc64"

	"golang.org/x/sys/cpu"
)

// minCLMUL is the shortest input worth the folding loop: below it the
// table does as well.
const minCLMUL = 64

// useCLMUL: the CPU has PCLMULQDQ. The loop needs nothing else beyond
// amd64's baseline SSE2.
var useCLMUL = cpu.X86.HasPCLMULQDQ

var foldK = foldConstants()

// foldCLMUL XORs crc into the first 8 bytes of p and folds p, whose
// length is at least 64 and a multiple of 16, into a 128-bit value
// congruent to it modulo P (see foldConstants).
//
//go:noescape
func foldCLMUL(crc uint64, p []byte, k *[4]uint64) (lo, hi uint64)

// updateCLMUL is Update for len(p) >= 64, a multiple of 16.
func updateCLMUL(crc uint64, p []byte) uint64 {
	lo, hi := foldCLMUL(^crc, p, &foldK)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	// The CRC of b with the register starting at zero: hash/crc64
	// inverts the register on the way in and out.
	return stdcrc64.Update(^uint64(0), table, b[:])
}
