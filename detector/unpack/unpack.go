package unpack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// The limits below refuse hostile archives; every one can be raised with
// an Options field (and an `unpack` flag).

// DefaultMaxBytes bounds the total size of the files an archive may inflate
// to, whatever its compressed size. The largest CUDA redistributable
// (libcublas, cuDNN) unpacks to a few GiB; 64 GiB leaves room.
const DefaultMaxBytes int64 = 64 << 30

// DefaultMaxRatio bounds the inflated size relative to the archive's
// size: NVIDIA's archives inflate 2 to 12 times, so 64 times leaves five
// times the margin while a 1 MB bomb stops at 64 MB (or MinRatioBound).
const DefaultMaxRatio = 64

// MinRatioBound is the least the ratio bound allows, so small archives
// of very compressible text are never refused for their ratio alone.
const MinRatioBound int64 = 1 << 30

// DefaultMaxEntries bounds the inodes an archive may create (files,
// directories, implicit parents included, links).
const DefaultMaxEntries = 1_000_000

// DefaultMaxDepth bounds the components of a path. NVIDIA's archives go
// about 12 deep; deep trees only serve to make every path operation slow.
const DefaultMaxDepth = 256

// ErrLimit is wrapped by every refusal for exceeding a limit of Options.
var ErrLimit = errors.New("limit exceeded")

// Options tune Unpack. The zero value means the defaults.
type Options struct {
	// MaxBytes is the most file content, in bytes, the archive may inflate
	// to; a hard link counts its file's bytes again, as the NAR holds them.
	MaxBytes int64
	// MaxRatio bounds the content to this many times the archive's size
	// (but never below MinRatioBound); negative disables the bound.
	MaxRatio int64
	// MaxEntries is the most inodes the archive may create.
	MaxEntries int
	// MaxDepth is the most components a path may have.
	MaxDepth int
	// KeepTopLevel disables the stripping of a single top-level directory.
	KeepTopLevel bool
	// Threads decode the blocks of a multi-block .tar.xz in parallel
	// (0: one per CPU; 1: decode in sequence).
	Threads int
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxRatio == 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// byteBound is the content limit for an archive of size compressed bytes:
// the smaller of MaxBytes and the ratio bound.
func (o Options) byteBound(compressed int64) int64 {
	if o.MaxRatio < 0 {
		return o.MaxBytes
	}
	bound := MinRatioBound
	if compressed > 0 && compressed <= math.MaxInt64/o.MaxRatio {
		bound = max(bound, compressed*o.MaxRatio)
	} else if compressed > 0 {
		bound = math.MaxInt64
	}
	return min(o.MaxBytes, bound)
}

// Stats describes what Unpack wrote.
type Stats struct {
	Format   Format
	Files    int
	Dirs     int
	Symlinks int
	// Bytes is the file content of the tree as its NAR holds it: a
	// hard-linked file counts once per name.
	Bytes int64
	// StrippedTopLevel is the name of the single top-level directory whose
	// content became the root, or "" when the archive itself is the root.
	StrippedTopLevel string

	work work
}

// work counts what an extraction did, refused or not: the tests bound
// an archive's cost by these, in proportion to its size, and never by
// the clock (export_test.go).
type work struct {
	// decoded is the bytes the decompressor handed over: the tar stream
	// read (headers, bodies and what follows the trailer), or the zip
	// entries' content read.
	decoded int64
	// dirLookups are the lookups in the cache of directories written.
	dirLookups int
	// symlinkSteps are the components stepped through resolving the
	// symlinks once the tree is complete.
	symlinkSteps int
}

// Unpack extracts the archive at src into dst, which must not exist or be
// an empty directory. The format is chosen from the content.
//
// When the archive holds exactly one top-level directory and nothing else,
// that directory's content becomes dst (as Nix's tarball fetcher does).
//
// A refused archive leaves nothing behind: dst is removed if Unpack
// created it, emptied otherwise.
func Unpack(src, dst string, opts Options) (Stats, error) {
	f, err := os.Open(src)
	if err != nil {
		return Stats{}, fmt.Errorf("unpack %s: %w", src, err)
	}
	defer f.Close()
	st, err := unpackFile(f, dst, opts.withDefaults())
	if err != nil {
		return st, fmt.Errorf("unpack %s: %w", src, err)
	}
	return st, nil
}

func unpackFile(f *os.File, dst string, opts Options) (Stats, error) {
	fi, err := f.Stat()
	if err != nil {
		return Stats{}, err
	}
	in := &countingReader{r: f}
	br := bufio.NewReaderSize(in, 1<<20)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Stats{}, fmt.Errorf("read header: %w", err)
	}
	format := DetectFormat(head)
	if format == FormatUnknown {
		return Stats{}, fmt.Errorf("unsupported or corrupt archive: unrecognised leading bytes % x", head[:min(len(head), 8)])
	}
	opts.MaxBytes = opts.byteBound(fi.Size())

	x, err := newExtractor(dst, opts)
	if err != nil {
		return Stats{}, err
	}
	x.stats.Format = format
	if err := x.extract(f, fi.Size(), format, br, in); err != nil {
		if rerr := x.removeAll(); rerr != nil {
			err = fmt.Errorf("%w (and removing what was written: %v)", err, rerr)
		}
		return x.stats, err
	}
	return x.stats, nil
}

func (x *extractor) extract(f *os.File, size int64, format Format, br *bufio.Reader, in *countingReader) error {
	if format == FormatZip {
		if err := x.extractZip(f, size); err != nil {
			return err
		}
		return x.finish()
	}
	stream, err := tarStream(f, format, br, x.opts.Threads)
	if err != nil {
		return err
	}
	defer stream.Close()
	if err := x.extractTar(stream, format, in, size); err != nil {
		return err
	}
	return x.finish()
}

// countingReader counts the bytes read through it: where a compressed
// stream ended, for the error.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// tarTail tracks the stream position and how many zero bytes it ended
// with, to tell a tar that ends with its end-of-archive block from one
// cut at an entry boundary (Go's reader accepts both).
type tarTail struct {
	r     io.Reader
	n     int64
	zeros int64
}

func (t *tarTail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.n += int64(n)
	i := n
	for i > 0 && p[i-1] == 0 {
		i--
	}
	if i == 0 {
		t.zeros += int64(n)
	} else {
		t.zeros = int64(n - i)
	}
	return n, err
}

// tarStream returns the decompressed tar stream: for a multi-block xz
// file, its blocks decoded in parallel; otherwise the decoder running a
// few chunks ahead on its own goroutine.
func tarStream(f *os.File, format Format, br *bufio.Reader, threads int) (io.ReadCloser, error) {
	if format == FormatTarXz && threads != 1 {
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		blocks, err := xzBlocks(f, fi.Size())
		if err != nil {
			return nil, err
		}
		if blocks != nil {
			return newParallelXZ(f, blocks, threads), nil
		}
	}
	stream, err := decompressor(format, br)
	if err != nil {
		return nil, err
	}
	return readAhead(stream), nil
}

func (x *extractor) extractTar(r io.Reader, format Format, in *countingReader, size int64) error {
	tail := &tarTail{r: r}
	defer func() { x.stats.work.decoded = tail.n }()
	tr := tar.NewReader(tail)
	last := "" // the last entry read, to say where a broken stream ended
	where := func() string {
		at := fmt.Sprintf("after %d bytes of tar data", tail.n)
		if last != "" {
			at += fmt.Sprintf(", in or after entry %q", last)
		}
		if format != FormatTar && in.n > 0 {
			at += fmt.Sprintf(", %s input read to byte %d of %d", format, in.n, size)
		}
		return at
	}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return x.afterTrailer(tail, format, where)
		}
		// Go may flag insecure names itself (GODEBUG tarinsecurepath); our
		// own checks below give the precise refusal, so carry on to them.
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fmt.Errorf("corrupt or truncated %s stream (%s): %w", format, where(), err)
		}
		last = hdr.Name
		kind, err := tarKind(hdr)
		if err != nil {
			return err
		}
		if kind == kindNone {
			// A global header (`git archive` writes one, the commit id;
			// GNU tar extracts nothing for it either) counts as an entry.
			if err := x.countInode(); err != nil {
				return fmt.Errorf("entry %q: %w", hdr.Name, err)
			}
			continue
		}
		e := entry{name: hdr.Name, linkname: hdr.Linkname, body: tr, exec: hdr.Mode&0o111 != 0, size: hdr.Size, kind: kind}
		if err := x.add(e); err != nil {
			if isStreamError(err) {
				return fmt.Errorf("corrupt or truncated %s stream (%s): %w", format, where(), err)
			}
			return err
		}
	}
}

// afterTrailer checks the end of a tar stream: its end-of-archive block,
// then the rest of the stream decoded so the compressor's checksums (gzip
// CRC and size, bzip2 stream CRC, xz check) are verified even for bytes
// after it. What follows counts against the size limit, so that a bomb
// hidden after the trailer cannot make this run for long.
func (x *extractor) afterTrailer(tail *tarTail, format Format, where func() string) error {
	if tail.zeros < 512 {
		return fmt.Errorf("truncated archive: the tar stream ends without its end-of-archive block (%s)", where())
	}
	if _, err := x.copyLimited(io.Discard, tail); err != nil {
		if errors.Is(err, ErrLimit) {
			return fmt.Errorf("after the tar trailer: %w", err)
		}
		return fmt.Errorf("corrupt or truncated %s stream after the tar trailer (%s): %w", format, where(), err)
	}
	return nil
}

// tarKind is the kind of entry of a tar header: kindNone for a global
// header, which holds no file; an error for what is refused.
func tarKind(hdr *tar.Header) (entryKind, error) {
	switch hdr.Typeflag {
	//lint:ignore SA1019 old tar writers mark regular files with '\x00' (TypeRegA), and archives are read as written
	case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
		return kindRegular, nil
	case tar.TypeDir:
		return kindDir, nil
	case tar.TypeSymlink:
		return kindSymlink, nil
	case tar.TypeLink:
		return kindHardlink, nil
	case tar.TypeXGlobalHeader:
		return kindNone, nil
	case tar.TypeChar, tar.TypeBlock:
		return 0, fmt.Errorf("entry %q: device nodes are not allowed", hdr.Name)
	case tar.TypeFifo:
		return 0, fmt.Errorf("entry %q: fifos are not allowed", hdr.Name)
	}
	return 0, fmt.Errorf("entry %q: unsupported tar entry type %q", hdr.Name, hdr.Typeflag)
}

// isStreamError tells a decoder's failure while copying a file's body
// from a refusal of the entry.
func isStreamError(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, gzip.ErrHeader) || errors.As(err, new(bzip2.StructuralError)) ||
		errors.Is(err, tar.ErrHeader) || errors.As(err, new(ZstdError))
}

func (x *extractor) extractZip(f io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("read zip directory: %w", err)
	}
	// The central directory lists every entry up front: one too many is
	// refused before anything is written.
	if err := x.checkZipEntries(zr.File); err != nil {
		return err
	}
	if err := checkZipOverlap(zr.File); err != nil {
		return err
	}
	for _, zf := range zr.File {
		mode := zf.Mode()
		e := entry{name: zf.Name, exec: mode&0o111 != 0, size: int64(min(zf.UncompressedSize64, math.MaxInt64))}
		switch {
		case mode&os.ModeSymlink != 0:
			e.kind = kindSymlink
			target, err := readZipLink(zf)
			x.stats.work.decoded += int64(len(target))
			if err != nil {
				return err
			}
			e.linkname = target
		case mode.IsDir():
			e.kind = kindDir
		case mode.IsRegular():
			e.kind = kindRegular
		default:
			return fmt.Errorf("entry %q: unsupported zip entry mode %v", zf.Name, mode)
		}
		if err := x.addZipEntry(zf, e); err != nil {
			return err
		}
	}
	return nil
}

// checkZipEntries refuses a zip whose central directory lists more entries
// than MaxEntries allows, counting as the extraction would (the root "./"
// too), before the first is written. Implicit parent directories can
// only add to the count, which the extraction still checks as it goes.
func (x *extractor) checkZipEntries(files []*zip.File) error {
	if len(files) > x.opts.MaxEntries {
		return fmt.Errorf("%w: the zip's central directory lists %d entries, more than %d (--max-entries)", ErrLimit, len(files), x.opts.MaxEntries)
	}
	return nil
}

// zipLocalHeader is the fixed part of a zip local file header.
const zipLocalHeader = 30

// checkZipOverlap refuses entries whose data overlap: a "zip bomb" points
// many central directory entries at one compressed blob, so that a 1 MB
// file inflates to hundreds of GiB. Each entry's data must lie after the
// previous entry's data and its own local header.
func checkZipOverlap(files []*zip.File) error {
	type span struct {
		start, end int64
		name       string
	}
	spans := make([]span, 0, len(files))
	for _, zf := range files {
		off, err := zf.DataOffset()
		if err != nil {
			return fmt.Errorf("entry %q: %w", zf.Name, err)
		}
		if zf.CompressedSize64 > math.MaxInt64-uint64(off) {
			return fmt.Errorf("entry %q: compressed size out of range", zf.Name)
		}
		spans = append(spans, span{off, off + int64(zf.CompressedSize64), zf.Name})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start-zipLocalHeader < spans[i-1].end {
			return fmt.Errorf("entries %q and %q overlap in the file (a zip bomb)", spans[i-1].name, spans[i].name)
		}
	}
	return nil
}

func (x *extractor) addZipEntry(zf *zip.File, e entry) error {
	if e.kind != kindRegular {
		return x.add(e)
	}
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer rc.Close()
	body := &countingReader{r: rc}
	e.body = body
	err = x.add(e)
	x.stats.work.decoded += body.n
	return err
}

// maxLinkTarget bounds a zip symlink's stored target; Linux caps paths at 4096.
const maxLinkTarget = 4096

func readZipLink(zf *zip.File) (string, error) {
	rc, err := zf.Open()
	if err != nil {
		return "", fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget+1))
	if err != nil {
		return "", fmt.Errorf("entry %q: read link target: %w", zf.Name, err)
	}
	if len(b) > maxLinkTarget {
		return "", fmt.Errorf("entry %q: symlink target longer than %d bytes", zf.Name, maxLinkTarget)
	}
	return string(b), nil
}
