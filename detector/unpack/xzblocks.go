package unpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack/xz"
)

// xz files written by multi-threaded xz (xz -T0, the default since XZ
// Utils 5.6, and dpkg's) hold independent blocks listed in an index at the
// end of the file. Decoding is the whole cost of unpacking, so such files
// are decoded one block per core, in order. Each block goes through the
// regular decoder as a one-block stream, so its check (CRC64 or SHA-256)
// is verified as usual.

const (
	xzHeaderSize = 12
	xzFooterSize = 12
	// maxParallelBlock bounds the uncompressed size of a block decoded in
	// parallel: each worker holds one block. xz -T0 -6 makes 24 MiB blocks.
	maxParallelBlock = 32 << 20
	// maxIndexSize bounds the index read from the end of the file.
	maxIndexSize = 1 << 20
)

// xzBlock is one entry of an xz index.
type xzBlock struct {
	offset       int64 // of the block header, from the start of the file
	unpadded     uint64
	uncompressed uint64
	header       []byte // the header of the block's stream (its check type)
}

// xzBlocks reads the indexes of an xz file, which may be several streams
// one after another (with stream padding between them), as xz itself
// accepts. It returns nil, nil when the file is fine but not worth
// decoding in parallel (one block, blocks too large).
func xzBlocks(r io.ReaderAt, size int64) ([]xzBlock, error) {
	var streams [][]xzBlock
	end := size
	for end > 0 {
		var err error
		if end, err = skipStreamPadding(r, end); err != nil {
			return nil, err
		}
		if end == 0 {
			break
		}
		blocks, start, err := xzStreamBlocks(r, end)
		if err != nil {
			return nil, err
		}
		streams = append(streams, blocks)
		end = start
	}
	var blocks []xzBlock
	for i := len(streams) - 1; i >= 0; i-- {
		blocks = append(blocks, streams[i]...)
	}
	if len(blocks) < 2 {
		return nil, nil
	}
	for _, b := range blocks {
		if b.uncompressed > maxParallelBlock {
			return nil, nil
		}
	}
	return blocks, nil
}

// skipStreamPadding returns where the stream ending at or before end
// ends: stream padding is null bytes, a multiple of four.
func skipStreamPadding(r io.ReaderAt, end int64) (int64, error) {
	var buf [4096]byte
	for end > 0 {
		n := min(int64(len(buf)), end)
		chunk := buf[:n]
		if _, err := r.ReadAt(chunk, end-n); err != nil {
			return 0, err
		}
		i := len(chunk)
		for i > 0 && chunk[i-1] == 0 {
			i--
		}
		end -= int64(len(chunk) - i)
		if i > 0 {
			break
		}
	}
	if end%4 != 0 {
		return 0, errors.New("xz: stream padding is not a multiple of four bytes")
	}
	return end, nil
}

// xzStreamBlocks reads the index of the stream ending at end and returns
// its blocks and where the stream starts.
func xzStreamBlocks(r io.ReaderAt, end int64) ([]xzBlock, int64, error) {
	if end < xzHeaderSize+xzFooterSize {
		return nil, 0, errors.New("xz: truncated stream")
	}
	footer := make([]byte, xzFooterSize)
	if _, err := r.ReadAt(footer, end-xzFooterSize); err != nil {
		return nil, 0, err
	}
	if string(footer[10:]) != "YZ" || crc32.ChecksumIEEE(footer[4:10]) != binary.LittleEndian.Uint32(footer[0:4]) {
		return nil, 0, fmt.Errorf("xz: corrupt stream footer before byte %d", end)
	}
	indexSize := (int64(binary.LittleEndian.Uint32(footer[4:8])) + 1) * 4
	if indexSize > maxIndexSize || indexSize > end-xzHeaderSize-xzFooterSize {
		return nil, 0, errors.New("xz: index size out of range")
	}
	indexStart := end - xzFooterSize - indexSize
	blocks, total, err := xzIndexRecords(r, indexStart, indexSize, end)
	if err != nil {
		return nil, 0, err
	}
	start := indexStart - total - xzHeaderSize
	if start < 0 {
		return nil, 0, errors.New("xz: index does not match the blocks")
	}
	header := make([]byte, xzHeaderSize)
	if _, err := r.ReadAt(header, start); err != nil {
		return nil, 0, err
	}
	if !bytes.Equal(header[:6], magicXz) || !bytes.Equal(footer[8:10], header[6:8]) {
		return nil, 0, fmt.Errorf("xz: index does not match the blocks (no stream header at byte %d)", start)
	}
	offset := start + xzHeaderSize
	for i := range blocks {
		blocks[i].offset = offset
		blocks[i].header = header
		offset += int64((blocks[i].unpadded + 3) &^ 3)
	}
	return blocks, start, nil
}

// xzIndexRecords reads the index of indexSize bytes at indexStart (of a
// stream ending at end) and returns its blocks' sizes and the blocks'
// total padded size.
func xzIndexRecords(r io.ReaderAt, indexStart, indexSize, end int64) ([]xzBlock, int64, error) {
	index := make([]byte, indexSize)
	if _, err := r.ReadAt(index, indexStart); err != nil {
		return nil, 0, err
	}
	if index[0] != 0 || crc32.ChecksumIEEE(index[:indexSize-4]) != binary.LittleEndian.Uint32(index[indexSize-4:]) {
		return nil, 0, errors.New("xz: corrupt index")
	}
	p := index[1 : indexSize-4]
	n, err := uvarint(&p)
	if err != nil || n > uint64(len(p)) {
		return nil, 0, errors.New("xz: corrupt index")
	}
	blocks := make([]xzBlock, n)
	var total int64
	for i := range blocks {
		unpadded, err1 := uvarint(&p)
		uncompressed, err2 := uvarint(&p)
		if err1 != nil || err2 != nil || unpadded == 0 || unpadded > uint64(end) {
			return nil, 0, errors.New("xz: corrupt index record")
		}
		blocks[i] = xzBlock{unpadded: unpadded, uncompressed: uncompressed}
		total += int64((unpadded + 3) &^ 3)
		if total > end {
			return nil, 0, errors.New("xz: index does not match the blocks")
		}
	}
	return blocks, total, nil
}

func uvarint(p *[]byte) (uint64, error) {
	v, n := binary.Uvarint(*p)
	if n <= 0 || n > 9 {
		return 0, errors.New("bad varint")
	}
	*p = (*p)[n:]
	return v, nil
}

// oneBlockStream wraps one block in a stream header, a one-record index
// and a footer, so the regular decoder verifies it. The block is not copied.
func oneBlockStream(header []byte, block []byte, b xzBlock) io.Reader {
	var index bytes.Buffer
	index.WriteByte(0)
	index.Write(binary.AppendUvarint(nil, 1))
	index.Write(binary.AppendUvarint(nil, b.unpadded))
	index.Write(binary.AppendUvarint(nil, b.uncompressed))
	for index.Len()%4 != 0 {
		index.WriteByte(0)
	}
	index.Write(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(index.Bytes())))
	footer := make([]byte, xzFooterSize)
	binary.LittleEndian.PutUint32(footer[4:8], uint32(index.Len()/4-1))
	copy(footer[8:10], header[6:8])
	binary.LittleEndian.PutUint32(footer[0:4], crc32.ChecksumIEEE(footer[4:10]))
	copy(footer[10:], "YZ")
	return io.MultiReader(bytes.NewReader(header), bytes.NewReader(block), &index, bytes.NewReader(footer))
}

type decodedBlock struct {
	data []byte
	buf  *[]byte // to give back to the pool once consumed
	err  error
}

// maxThreads caps the default number of decoding threads: memory grows
// with each (a decoded block, a compressed block and a dictionary).
const maxThreads = 4

// parallelXZ decodes the blocks on several workers and returns their
// content in order. Memory: workers+1 decoded blocks (the one being read,
// and one per worker), plus each worker's compressed block and dictionary.
type parallelXZ struct {
	results []chan decodedBlock
	tokens  chan struct{}
	pool    *bufferPool
	next    int
	cur     []byte
	curBuf  *[]byte
	stop    chan struct{}
	err     error
}

func newParallelXZ(r io.ReaderAt, blocks []xzBlock, workers int) *parallelXZ {
	if workers < 1 {
		workers = min(runtime.GOMAXPROCS(0), maxThreads)
	}
	var largest uint64
	for _, b := range blocks {
		largest = max(largest, b.uncompressed)
	}
	// Output buffers are reused: a block's buffer goes back once the
	// reader has consumed it. workers+1 of them is all there can be in use.
	pool := &bufferPool{free: make(chan *[]byte, workers+1), size: largest}
	p := &parallelXZ{results: make([]chan decodedBlock, len(blocks)), stop: make(chan struct{}), pool: pool}
	for i := range p.results {
		p.results[i] = make(chan decodedBlock, 1)
	}
	// A token per block dispatched and not yet taken by the reader, which
	// returns one as it takes a block: decoding runs at most workers ahead.
	tokens := make(chan struct{}, workers)
	for i := 0; i < workers; i++ {
		tokens <- struct{}{}
	}
	p.tokens = tokens
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range blocks {
			select {
			case <-tokens:
			case <-p.stop:
				return
			}
			select {
			case jobs <- i:
			case <-p.stop:
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			// Each worker keeps its decoder (and so its dictionary) and
			// its compressed-block buffer from block to block.
			wk := &blockWorker{pool: pool}
			for i := range jobs {
				p.results[i] <- wk.decode(r, blocks[i])
			}
		}()
	}
	return p
}

// bufferPool is a fixed free list: unlike sync.Pool, the garbage
// collector does not empty it, so no block buffer is allocated twice.
type bufferPool struct {
	free chan *[]byte
	size uint64
}

func (p *bufferPool) Get() *[]byte {
	select {
	case b := <-p.free:
		return b
	default:
		b := make([]byte, 0, p.size)
		return &b
	}
}

func (p *bufferPool) Put(b *[]byte) {
	select {
	case p.free <- b:
	default:
	}
}

type blockWorker struct {
	pool       *bufferPool
	dec        *xz.Reader
	compressed []byte
}

func (w *blockWorker) decode(r io.ReaderAt, b xzBlock) decodedBlock {
	fail := func(err error) decodedBlock {
		return decodedBlock{err: fmt.Errorf("xz: block at offset %d: %w", b.offset, err)}
	}
	size := int((b.unpadded + 3) &^ 3)
	if cap(w.compressed) < size {
		w.compressed = make([]byte, size)
	}
	padded := w.compressed[:size]
	if _, err := r.ReadAt(padded, b.offset); err != nil {
		return fail(err)
	}
	stream := oneBlockStream(b.header, padded, b)
	var err error
	if w.dec == nil {
		w.dec, err = xz.NewReader(stream, 0)
	} else {
		err = w.dec.Reset(stream)
	}
	if err != nil {
		return fail(err)
	}
	buf := w.pool.Get()
	out := (*buf)[:b.uncompressed]
	if _, err := io.ReadFull(w.dec, out); err != nil {
		w.pool.Put(buf)
		return fail(err)
	}
	if n, err := w.dec.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		w.pool.Put(buf)
		if err == nil || err == io.EOF {
			err = errors.New("longer than the index says")
		}
		return fail(err)
	}
	return decodedBlock{data: out, buf: buf}
}

func (p *parallelXZ) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.next == len(p.results) {
			return 0, io.EOF
		}
		if p.curBuf != nil {
			p.pool.Put(p.curBuf)
			p.curBuf = nil
		}
		res := <-p.results[p.next]
		p.next++
		p.tokens <- struct{}{}
		p.curBuf = res.buf
		if res.err != nil {
			p.err = res.err
			return 0, res.err
		}
		p.cur = res.data
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops handing out blocks; workers finish the ones they hold.
func (p *parallelXZ) Close() error {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	return nil
}
