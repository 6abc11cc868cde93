package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
)

// Errors, wrapped with what failed and at which byte of the input.
var (
	// ErrNotXZ: the input (or what follows a stream and its padding)
	// does not start with the stream header magic.
	ErrNotXZ = errors.New("xz: not an xz stream")
	// ErrCorrupt: a field fails its check or contradicts another.
	ErrCorrupt = errors.New("xz: corrupt data")
	// ErrTruncated: the input ends inside a stream.
	ErrTruncated = errors.New("xz: truncated input")
	// ErrUnsupported: a valid feature this package does not implement
	// (a filter, a check type, flags reserved for later versions).
	ErrUnsupported = errors.New("xz: unsupported")
	// ErrDictLimit: a block's dictionary is larger than the Reader's
	// limit.
	ErrDictLimit = errors.New("xz: dictionary larger than the limit")
)

// DefaultDictLimit is the dictionary size limit NewReader applies when
// given 0: enough for every preset of XZ Utils (xz -9 uses 64 MiB).
const DefaultDictLimit = 64 << 20

var (
	streamMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	footerMagic = []byte{'Y', 'Z'}
)

// Check types and the sizes of their fields. IDs 0x02-0x0f other than
// these are reserved; their sizes are fixed by the format, but no
// decoder can verify them, so they are refused.
const (
	checkNone   = 0x00
	checkCRC32  = 0x01
	checkCRC64  = 0x04
	checkSHA256 = 0x0a
)

// Reader decompresses an .xz file: one or more streams, each optionally
// followed by stream padding. It verifies every check and size the
// format has; see doc.go.
type Reader struct {
	src       source
	dictLimit uint32
	phase     phase
	flags     [2]byte   // the stream flags, which the footer repeats
	check     hash.Hash // nil for checkNone
	checkLen  int
	crc32     hash.Hash
	crc64     hash.Hash
	sha256    hash.Hash

	// The block being decoded.
	chain        stage
	lz           lzma2
	deltas       []*delta // reused from block to block
	bcjs         []*bcj
	headerLen    int
	wantPacked   int64 // the header's compressed size, or -1
	wantSize     int64 // the header's uncompressed size, or -1
	packedStart  int64 // src.taken at the start of the compressed data
	size         int64 // uncompressed bytes so far
	blocks       uint64
	records      hash.Hash // SHA-256 of the blocks' (unpadded, uncompressed) sizes
	indexRecords hash.Hash // the same, of the index's records

	err error // sticky
}

// crc64Table is the xz CRC-64's: ECMA-182, bit-reflected. hash/crc64
// reads it slicing-by-8; a PCLMULQDQ loop in assembly was faster on the
// check alone but saved under 10 % of the detector's time on a real
// archive (docs/performance.md, "Hand-written assembly"), so it went.
var crc64Table = crc64.MakeTable(crc64.ECMA)

type phase int

const (
	phaseBlockStart phase = iota // a block header or the index
	phaseBlock                   // inside a block's data
	phaseDone                    // all streams read
)

// NewReader reads the first stream header from r and returns a Reader
// of the decompressed data. Blocks whose dictionary exceeds dictLimit
// bytes (DefaultDictLimit if 0) are refused with ErrDictLimit.
func NewReader(r io.Reader, dictLimit uint32) (*Reader, error) {
	if dictLimit == 0 {
		dictLimit = DefaultDictLimit
	}
	z := &Reader{
		dictLimit:    dictLimit,
		crc32:        crc32.NewIEEE(),
		crc64:        crc64.New(crc64Table),
		sha256:       sha256.New(),
		records:      sha256.New(),
		indexRecords: sha256.New(),
	}
	return z, z.Reset(r)
}

// Reset makes z read a new input from r, keeping its buffers (the
// dictionary above all), and reads the first stream header.
func (z *Reader) Reset(r io.Reader) error {
	if r == nil {
		z.err = errors.New("xz: no input (nil io.Reader)")
		return z.err
	}
	z.src.reset(r)
	z.err = nil
	z.err = z.streamHeader()
	return z.err
}

// Read reads decompressed data. It returns io.EOF after the last stream
// and its padding, and an error wrapping one of the Err values on bad
// input, after the bytes decoded before the error was found.
func (z *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && z.err == nil {
		switch z.phase {
		case phaseBlockStart:
			z.err = z.blockStart()
		case phaseBlock:
			k, err := z.chain.read(p[n:])
			if k > 0 {
				z.size += int64(k)
				if z.check != nil {
					z.check.Write(p[n : n+k])
				}
				n += k
				if z.wantSize >= 0 && z.size > z.wantSize {
					err = fmt.Errorf("%w: block at byte %d decodes to more than the %d bytes its header says", ErrCorrupt, z.packedStart-int64(z.headerLen), z.wantSize)
				}
			}
			if errors.Is(err, io.EOF) {
				err = z.blockEnd()
			}
			z.err = err
		case phaseDone:
			z.err = io.EOF
		}
	}
	if n > 0 && errors.Is(z.err, io.EOF) {
		return n, nil
	}
	return n, z.err
}

// streamHeader reads a stream header: magic, flags, CRC32 of the flags.
func (z *Reader) streamHeader() error {
	at := z.src.taken
	h, err := z.src.take(12)
	if err != nil {
		return err
	}
	if !bytes.Equal(h[:6], streamMagic) {
		return fmt.Errorf("%w (at byte %d)", ErrNotXZ, at)
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:12]) {
		return fmt.Errorf("%w: stream header at byte %d fails its CRC32", ErrCorrupt, at)
	}
	if h[6] != 0 || h[7] > 0x0f {
		return fmt.Errorf("%w: stream flags %02x%02x at byte %d (reserved bits set)", ErrUnsupported, h[6], h[7], at+6)
	}
	z.flags = [2]byte{h[6], h[7]}
	switch h[7] {
	case checkNone:
		z.check, z.checkLen = nil, 0
	case checkCRC32:
		z.check, z.checkLen = z.crc32, 4
	case checkCRC64:
		z.check, z.checkLen = z.crc64, 8
	case checkSHA256:
		z.check, z.checkLen = z.sha256, 32
	default:
		return fmt.Errorf("%w: check type 0x%02x at byte %d (reserved; only none, CRC32, CRC64 and SHA-256 are defined)", ErrUnsupported, h[7], at+7)
	}
	z.blocks = 0
	z.records.Reset()
	z.phase = phaseBlockStart
	return nil
}

// blockStart reads what follows a stream header or a block: a block
// header, or the index indicator (a zero byte).
func (z *Reader) blockStart() error {
	at := z.src.taken
	b, err := z.src.take(1)
	if err != nil {
		return err
	}
	if b[0] == 0 {
		return z.index(at)
	}
	first := b[0]
	h, err := z.src.take(int(first)*4 + 3)
	if err != nil {
		return err
	}
	// The header is (first+1)*4 bytes, this byte included.
	return z.blockHeader(at, append([]byte{first}, h...))
}

// blockHeader parses a block header (h, read from byte at) and sets up
// the block's filter chain.
func (z *Reader) blockHeader(at int64, h []byte) error {
	fail := headerFailure(at).of
	body := h[:len(h)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(h[len(h)-4:]) {
		return fail(ErrCorrupt, "fails its CRC32")
	}
	flags := body[1]
	if flags&0x3c != 0 {
		return fail(ErrUnsupported, "reserved flag bits set (0x%02x)", flags)
	}
	p := body[2:]
	if err := z.blockSizes(flags, &p, fail); err != nil {
		return err
	}
	filters, err := readFilters(int(flags&3)+1, p, fail)
	if err != nil {
		return err
	}
	if err := z.setLZMA2(filters[len(filters)-1], fail); err != nil {
		return err
	}
	// The chain is built from the last filter, LZMA2, which decodes the
	// data, back to the first.
	var nd, nb int
	for i := len(filters) - 2; i >= 0; i-- {
		if err := z.chainFilter(filters[i], &nd, &nb, fail); err != nil {
			return err
		}
	}
	z.headerLen = len(h)
	z.packedStart = z.src.taken
	z.size = 0
	if z.check != nil {
		z.check.Reset()
	}
	z.phase = phaseBlock
	return nil
}

// headerFailure is the byte a block header starts at; of makes the
// errors about that header.
type headerFailure int64

func (at headerFailure) of(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: block header at byte %d: %s", kind, int64(at), fmt.Sprintf(format, args...))
}

// blockSizes reads the compressed and uncompressed sizes the header's
// flags say it holds (-1 each when absent) from *p, past them.
func (z *Reader) blockSizes(flags byte, p *[]byte, fail func(error, string, ...any) error) error {
	z.wantPacked, z.wantSize = -1, -1
	if flags&0x40 != 0 {
		v, err := uvarint(p)
		switch {
		case err != nil:
			return fail(ErrCorrupt, "compressed size: %v", err)
		case v == 0 || v >= 1<<63-8:
			return fail(ErrCorrupt, "compressed size %d out of range", v)
		}
		z.wantPacked = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := uvarint(p)
		if err != nil {
			return fail(ErrCorrupt, "uncompressed size: %v", err)
		}
		z.wantSize = int64(v)
	}
	return nil
}

// filterFlags is one filter of a block header: ID and properties.
type filterFlags struct {
	id    uint64
	props []byte
}

// readFilters reads n filter flags (ID, size of properties, properties)
// from p, and checks that the header's padding after them is zero.
func readFilters(n int, p []byte, fail func(error, string, ...any) error) ([]filterFlags, error) {
	filters := make([]filterFlags, n)
	for i := range filters {
		id, err := uvarint(&p)
		if err != nil {
			return nil, fail(ErrCorrupt, "filter %d ID: %v", i+1, err)
		}
		size, err := uvarint(&p)
		if err != nil || size > uint64(len(p)) {
			return nil, fail(ErrCorrupt, "filter %d (ID 0x%02x) properties overrun the header", i+1, id)
		}
		filters[i] = filterFlags{id, p[:size]}
		p = p[size:]
	}
	for _, b := range p {
		if b != 0 {
			return nil, fail(ErrUnsupported, "header padding is not zero")
		}
	}
	return filters, nil
}

// setLZMA2 starts the chain with the last filter, which must be LZMA2
// with a dictionary within the Reader's limit.
func (z *Reader) setLZMA2(last filterFlags, fail func(error, string, ...any) error) error {
	if last.id != filterLZMA2 {
		return fail(ErrUnsupported, "%s", filterDesc(last.id, "as the last filter (only LZMA2 is supported there)"))
	}
	if len(last.props) != 1 {
		return fail(ErrUnsupported, "LZMA2 with %d property bytes (1 expected)", len(last.props))
	}
	dict, err := lzma2DictSize(last.props[0])
	if err != nil {
		return fail(ErrUnsupported, "%v", err)
	}
	if dict > z.dictLimit {
		return fail(ErrDictLimit, "LZMA2 dictionary of %d bytes (limit %d)", dict, z.dictLimit)
	}
	z.lz.reset(&z.src, dict)
	z.chain = &z.lz
	return nil
}

// chainFilter puts filter f in front of the chain, reusing the Reader's
// delta and BCJ filters (*nd and *nb of each are in use so far).
func (z *Reader) chainFilter(f filterFlags, nd, nb *int, fail func(error, string, ...any) error) error {
	switch f.id {
	case filterDelta:
		if len(f.props) != 1 {
			return fail(ErrUnsupported, "delta filter with %d property bytes (1 expected)", len(f.props))
		}
		if *nd == len(z.deltas) {
			z.deltas = append(z.deltas, new(delta))
		}
		d := z.deltas[*nd]
		*nd++
		*d = delta{next: z.chain, dist: int(f.props[0]) + 1}
		z.chain = d
	case filterX86, filterPowerPC, filterIA64, filterARM, filterARMT, filterSPARC:
		start, err := bcjStart(f, fail)
		if err != nil {
			return err
		}
		if *nb == len(z.bcjs) {
			z.bcjs = append(z.bcjs, new(bcj))
		}
		b := z.bcjs[*nb]
		*nb++
		b.reset(z.chain, f.id, start)
		z.chain = b
	default:
		return fail(ErrUnsupported, "%s", filterDesc(f.id, "(not supported before LZMA2)"))
	}
	return nil
}

// bcjStart is a BCJ filter's start offset: 0, or its 4 property bytes,
// a multiple of the filter's alignment.
func bcjStart(f filterFlags, fail func(error, string, ...any) error) (uint32, error) {
	var start uint32
	switch len(f.props) {
	case 0:
	case 4:
		start = binary.LittleEndian.Uint32(f.props)
	default:
		return 0, fail(ErrUnsupported, "%s", filterDesc(f.id, fmt.Sprintf("with %d property bytes (0 or 4 expected)", len(f.props))))
	}
	if start%bcjAlign[f.id] != 0 {
		return 0, fail(ErrUnsupported, "%s", filterDesc(f.id, fmt.Sprintf("with start offset %d, not a multiple of %d", start, bcjAlign[f.id])))
	}
	return start, nil
}

func filterDesc(id uint64, what string) string {
	if name, ok := filterNames[id]; ok {
		return fmt.Sprintf("filter 0x%02x (%s) %s", id, name, what)
	}
	return fmt.Sprintf("filter 0x%02x (unknown) %s", id, what)
}

// blockEnd checks a block once its data has ended: its sizes against its
// header, its padding and its check; and records its sizes for the index.
func (z *Reader) blockEnd() error {
	start := z.packedStart - int64(z.headerLen)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: block at byte %d: %s", ErrCorrupt, start, fmt.Sprintf(format, args...))
	}
	packed := z.src.taken - z.packedStart
	if z.wantPacked >= 0 && packed != z.wantPacked {
		return fail("%d bytes of compressed data, its header says %d", packed, z.wantPacked)
	}
	if z.wantSize >= 0 && z.size != z.wantSize {
		return fail("decodes to %d bytes, its header says %d", z.size, z.wantSize)
	}
	if pad := int(-packed & 3); pad > 0 {
		b, err := z.src.take(pad)
		if err != nil {
			return err
		}
		for _, c := range b {
			if c != 0 {
				return fail("block padding is not zero")
			}
		}
	}
	if z.checkLen > 0 {
		want, err := z.src.take(z.checkLen)
		if err != nil {
			return err
		}
		var sum [32]byte
		got := z.check.Sum(sum[:0])
		if z.checkLen <= 8 {
			// CRC32 and CRC64 are stored little-endian; Sum gives them big-endian.
			for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
				got[i], got[j] = got[j], got[i]
			}
		}
		if !bytes.Equal(got, want) {
			return fail("%s check mismatch", map[int]string{4: "CRC32", 8: "CRC64", 32: "SHA-256"}[z.checkLen])
		}
	}
	unpadded := uint64(z.headerLen) + uint64(packed) + uint64(z.checkLen)
	writeRecord(z.records, unpadded, uint64(z.size))
	z.blocks++
	z.phase = phaseBlockStart
	return nil
}

func writeRecord(h hash.Hash, unpadded, uncompressed uint64) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], unpadded)
	binary.LittleEndian.PutUint64(b[8:], uncompressed)
	h.Write(b[:])
}

// index reads the index (its indicator byte, at byte at, already taken)
// and checks it against the blocks decoded, then the stream footer, then
// the stream padding and whether another stream follows.
func (z *Reader) index(at int64) error {
	r := &indexReader{src: &z.src, crc: crc32.NewIEEE(), fail: func(format string, args ...any) error {
		return fmt.Errorf("%w: index at byte %d: %s", ErrCorrupt, at, fmt.Sprintf(format, args...))
	}}
	r.crc.Write([]byte{0})
	if err := z.indexRecordsMatch(r); err != nil {
		return err
	}
	size := z.src.taken - at
	pad, err := r.padding(int(-size & 3))
	if err != nil {
		return err
	}
	sum, err := z.src.take(4)
	if err != nil {
		return err
	}
	if r.crc.Sum32() != binary.LittleEndian.Uint32(sum) {
		return r.fail("fails its CRC32")
	}
	return z.footer(size + int64(pad))
}

// indexReader reads the fields of an index, adding each byte to its
// CRC32; fail makes the errors about it.
type indexReader struct {
	src  *source
	crc  hash.Hash32
	fail func(format string, args ...any) error
}

// uvarint reads a minimal variable-length integer of at most 9 bytes.
func (r *indexReader) uvarint() (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		b, err := r.src.take(1)
		if err != nil {
			return 0, err
		}
		r.crc.Write(b)
		v |= uint64(b[0]&0x7f) << (7 * i)
		if b[0]&0x80 == 0 {
			if b[0] == 0 && i > 0 {
				return 0, r.fail("integer with a needless trailing zero byte")
			}
			return v, nil
		}
		if i == 8 {
			return 0, r.fail("integer longer than 9 bytes")
		}
	}
}

// padding reads the index's n padding bytes, which must be zero.
func (r *indexReader) padding(n int) (int, error) {
	if n == 0 {
		return 0, nil
	}
	p, err := r.src.take(n)
	if err != nil {
		return 0, err
	}
	r.crc.Write(p)
	for _, c := range p {
		if c != 0 {
			return 0, r.fail("index padding is not zero")
		}
	}
	return n, nil
}

// indexRecordsMatch reads the index's count and records and checks them
// against the blocks decoded (by a SHA-256 of each side's list).
func (z *Reader) indexRecordsMatch(r *indexReader) error {
	count, err := r.uvarint()
	if err != nil {
		return err
	}
	if count != z.blocks {
		return r.fail("lists %d blocks, the stream has %d", count, z.blocks)
	}
	z.indexRecords.Reset()
	for range count {
		unpadded, err := r.uvarint()
		if err != nil {
			return err
		}
		size, err := r.uvarint()
		if err != nil {
			return err
		}
		writeRecord(z.indexRecords, unpadded, size)
	}
	var a, b [32]byte
	if !bytes.Equal(z.records.Sum(a[:0]), z.indexRecords.Sum(b[:0])) {
		return r.fail("its records do not match the blocks' sizes")
	}
	return nil
}

// footer reads a stream footer (CRC32, backward size, flags, magic), then
// the stream padding after it and the next stream's header, if any.
func (z *Reader) footer(indexSize int64) error {
	at := z.src.taken
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: stream footer at byte %d: %s", ErrCorrupt, at, fmt.Sprintf(format, args...))
	}
	f, err := z.src.take(12)
	if err != nil {
		return err
	}
	switch {
	case !bytes.Equal(f[10:12], footerMagic):
		return fail("no footer magic")
	case crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[0:4]):
		return fail("fails its CRC32")
	case (int64(binary.LittleEndian.Uint32(f[4:8]))+1)*4 != indexSize+4:
		// The backward size is the index's size (with its CRC32) in
		// units of four bytes, minus one.
		return fail("backward size says %d bytes of index, the index has %d", (int64(binary.LittleEndian.Uint32(f[4:8]))+1)*4, indexSize+4)
	case f[8] != z.flags[0] || f[9] != z.flags[1]:
		return fail("stream flags %02x%02x differ from the header's %02x%02x", f[8], f[9], z.flags[0], z.flags[1])
	}
	// Stream padding: null bytes, a multiple of four, then the end or
	// another stream.
	padAt := z.src.taken
	for {
		end, err := z.src.atEOF()
		if err != nil {
			return err
		}
		if end || z.src.buf[z.src.pos] != 0 {
			if pad := z.src.taken - padAt; pad%4 != 0 {
				return fmt.Errorf("%w: stream padding at byte %d is %d bytes, not a multiple of four", ErrCorrupt, padAt, pad)
			}
			if end {
				z.phase = phaseDone
				return nil
			}
			return z.streamHeader()
		}
		z.src.skip(1)
	}
}

// uvarint decodes a variable-length integer of the format from p: 7 bits
// a byte, least significant first, at most 9 bytes, no needless trailing
// zero byte.
func uvarint(p *[]byte) (uint64, error) {
	var v uint64
	for i, b := range *p {
		if i == 9 {
			break
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			if b == 0 && i > 0 {
				return 0, errors.New("integer with a needless trailing zero byte")
			}
			*p = (*p)[i+1:]
			return v, nil
		}
	}
	return 0, errors.New("integer runs past the header or beyond 9 bytes")
}
