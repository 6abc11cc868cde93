// Package xz decompresses .xz files, written here from the .xz file
// format specification (1.x) and the LZMA/LZMA2 algorithm.
//
// # What it checks
//
// Every integrity field the format has: the CRC32s of the stream
// header, block headers, index and stream footer; each block's check
// (CRC32, CRC64 or SHA-256; none if the stream says so); the compressed
// and uncompressed sizes a block header may carry; block, index and
// stream padding (zero bytes, to a multiple of four); that the index
// lists exactly the blocks decoded, with their unpadded and uncompressed
// sizes; the footer's backward size and its copy of the stream flags.
// Inputs may hold several streams, each followed by stream padding. In
// LZMA2 data it checks the chunk sequence (the first chunk resets the
// dictionary, the first LZMA chunk after a reset sets properties), that
// each LZMA chunk consumes exactly its compressed size, ends with the
// range decoder at zero and decodes exactly its uncompressed size, and
// that no match reaches before the dictionary.
//
// Filters: LZMA2 last, optionally preceded by up to three delta or BCJ
// filters (x86, PowerPC, IA-64, ARM, ARM-Thumb, SPARC). Other filters
// (ARM64 and RISC-V BCJ, unknown IDs) and reserved check types are
// refused with ErrUnsupported naming the ID. A dictionary above the Reader's limit (64 MiB by default) is
// refused with ErrDictLimit.
//
// Errors wrap ErrNotXZ, ErrCorrupt, ErrTruncated, ErrUnsupported or
// ErrDictLimit and name the field and its byte offset in the input. Read
// returns the bytes decoded before an error, then the error.
//
// # Design
//
// The Reader parses the container (source.go: a buffered input that
// counts the bytes taken; reader.go: headers, blocks, index, footer) and
// pulls decoded bytes through the block's filter chain (filters.go),
// whose last stage is LZMA2 (lzma2.go).
//
// An LZMA2 chunk is at most 64 KiB compressed and 2 MiB decoded, and its
// sizes are in its header. So a chunk is decoded whole, in one call,
// from its compressed bytes in the input buffer into the dictionary
// (window.go): a ring followed by a spill area of one chunk, so that the
// chunk is written in a straight line and what spilled is moved to the
// ring's start before the next one. The LZMA loop therefore never tests
// for an output limit, never wraps its write position and never stops in
// the middle of a match; at a chunk's end it checks that the input
// consumed is exactly the chunk's.
//
// Speed: decompression is the whole cost of unpacking an archive, and
// nearly all of it is the LZMA loop (lzma.go, rangecoder.go):
//   - the range decoder (range, code, input position), the state, the
//     four distances and the dictionary are locals of one function, and
//     the bit decoders are small functions the compiler inlines, passing
//     and returning those values, so they stay in registers;
//   - a bit is decoded without a branch (conditional moves): the bits
//     of compressed machine code are about as predictable as coin flips;
//   - bit trees load both children's probabilities before the bit is
//     known, which takes a load off the critical path of each bit;
//   - probabilities are fixed-size arrays indexed by masked values, so
//     the loop has no bounds checks on them;
//   - matches whose source is at least 8 bytes back are copied 8 bytes
//     at a time (the ring holds 16 bytes more than the dictionary, and
//     the buffer 16 after the spill area, for the last step's overrun);
//     shorter distances byte by byte, or with copy, repeating the
//     source;
//   - the previous byte stays in a register from literal to literal;
//   - on Linux the dictionary buffer asks for transparent huge pages
//     (window_linux.go): far matches otherwise miss the TLB too;
//   - the input buffer is an array indexed by a mask, with bytes to
//     spare after the data, so the range decoder reads without bounds
//     checks or a test for the chunk's end on every byte: the loop
//     checks once per symbol (a symbol reads at most 48 bytes).
//
// The CRC64 check is hash/crc64's (docs/performance.md says why no
// assembly). docs/xz.md gives today's speed against XZ Utils.
//
// # Oracle
//
// github.com/therootcompany/xz (a Go port of XZ Embedded) is a test
// dependency only: oracle_test.go and FuzzDecodersAgree require that on
// every input both decoders give the same bytes or both fail.
package xz
