// Package xz implements XZ decompression natively in Go.
//
// # This copy
//
// This is github.com/therootcompany/xz (CC0, vendored at the version in
// go.mod), copied so its LZMA symbol loop could be rewritten for speed
// (lzma_main.go: range coder and dictionary in locals, bit decoding
// inlined). Everything else, including every integrity check (block
// CRC32/CRC64/SHA-256, index, footer, stream padding, multiple streams),
// is the original code, except that the CRC64 is computed by the crc64
// subpackage (PCLMULQDQ on amd64) instead of hash/crc64. The original package stays the test oracle:
// oracle_test.go and FuzzDecodersAgree compare the two on every input.
//
// A second pass cut the decoding CPU time by about a sixth (see
// BenchmarkDecodeArchive), each step checked with perf and the generated
// code: a bit is decoded with conditional moves rather than masks (bitV,
// decodeV); tree decoders load both children's probabilities before the
// bit is known, so an L1 load is no longer on the critical path of every
// bit; the bit trees take fixed-size arrays, which removes their bounds
// checks and the spills of range and code; and copyMatch moves short
// matches byte by byte but long ones, overlapping or wrapping around the
// dictionary, with copy.
//
// # Usage
//
// For ease of use, this package is designed to have a similar API to
// compress/gzip. See the examples for further details.
//
// # Implementation
//
// This package is a translation from C to Go of XZ Embedded
// (http://tukaani.org/xz/embedded.html) with enhancements made so as
// to implement all mandatory and optional parts of the XZ file format
// specification v1.0.4. It supports all filters and block check
// types, supports multiple streams, and performs index verification
// using SHA-256 as recommended by the specification.
//
// # Speed
//
// On the author's Intel Ivybridge i5, decompression speed is about
// half that of the standard XZ Utils (tested with a recent linux
// kernel tarball).
//
// # Thanks
//
// Thanks are due to Lasse Collin and Igor Pavlov, the authors of XZ
// Embedded, on whose code package xz is based. It would not exist
// without their decision to allow others to modify and reuse their
// code.
//
// # Bug reports
//
// For bug reports relating to this package please contact the author
// through https://github.com/xi2/xz/issues, and not the authors of XZ
// Embedded.
package xz
