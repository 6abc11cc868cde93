package facts

import "golang.org/x/sys/cpu"

// useAVX2: the CPU has AVX2 and the OS saves the YMM registers on a
// context switch (x/sys/cpu checks both).
var useAVX2 = cpu.X86.HasAVX2

// indexUsrAVX2 searches data for usrBytes in blocks of starts whose
// loads fit in data. match is the first start of a match, or -1; then
// scanned is how many starts, from 0, were searched, and the rest (fewer
// than usrAVX2Window bytes) are left to the caller.
//
//go:noescape
func indexUsrAVX2(data []byte) (match, scanned int)

// usrAVX2Window is how far a block of 32 starts reads: 32 bytes from
// start+4, the needle's last byte (the 36 in indexusr_amd64.s).
const usrAVX2Window = 36

// indexUsr is bytes.Index(data, usrBytes). On binaries most of the cost
// of indexUsrScalar is one IndexByte call per 'u' (half a million per
// 279 MB of libcufft); the AVX2 loop stays in the loop until a match,
// skipping 128 starts at a time that hold no 'u' three bytes before a '/'.
func indexUsr(data []byte) int {
	if !useAVX2 || len(data) < usrAVX2Window {
		return indexUsrScalar(data)
	}
	return indexUsrVector(data)
}

// indexUsrVector is indexUsr's AVX2 path, for len(data) >=
// usrAVX2Window (shorter input is searched correctly, all by the tail).
func indexUsrVector(data []byte) int {
	match, scanned := indexUsrAVX2(data)
	if match >= 0 {
		return match
	}
	// The starts from scanned on, fewer than usrAVX2Window, too few for a
	// block.
	if i := indexUsrScalar(data[scanned:]); i >= 0 {
		return scanned + i
	}
	return -1
}
