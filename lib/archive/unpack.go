// Package archive extracts NVIDIA redistributable archives (.tar.xz, .tar.gz,
// .tar.bz2, .tar, .zip) safely: nothing is ever written outside the output
// directory, memory stays bounded whatever the archive size, and anything a
// Nix store path cannot hold (devices, fifos, owners, times) is refused or
// normalised.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxBytes bounds the total size of the files an archive may inflate
// to. The largest CUDA redistributable (libcublas, cuDNN) unpacks to a few
// GiB; 64 GiB leaves room while still stopping a decompression bomb.
const DefaultMaxBytes int64 = 64 << 30

// DefaultMaxEntries bounds the number of entries (files, dirs, links).
const DefaultMaxEntries = 1_000_000

// Options tune Unpack. The zero value means the defaults.
type Options struct {
	// MaxBytes is the most file content, in bytes, the archive may inflate to.
	MaxBytes int64
	// MaxEntries is the most entries the archive may hold.
	MaxEntries int
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
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	return o
}

// Stats describes what Unpack wrote.
type Stats struct {
	Format   Format
	Files    int
	Dirs     int
	Symlinks int
	Bytes    int64
	// StrippedTopLevel is the name of the single top-level directory whose
	// content became the root, or "" when the archive itself is the root.
	StrippedTopLevel string
}

// Unpack extracts the archive at src into dst, which must not exist or be
// an empty directory. The format is chosen from the content.
//
// When the archive holds exactly one top-level directory and nothing else,
// that directory's content becomes dst (as Nix's tarball fetcher does).
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
	br := bufio.NewReaderSize(f, 1<<20)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Stats{}, fmt.Errorf("read header: %w", err)
	}
	format := DetectFormat(head)
	if format == FormatUnknown {
		return Stats{}, fmt.Errorf("unsupported or corrupt archive: unrecognised leading bytes % x", head[:min(len(head), 8)])
	}

	x, err := newExtractor(dst, opts)
	if err != nil {
		return Stats{}, err
	}
	x.stats.Format = format

	if format == FormatZip {
		fi, err := f.Stat()
		if err != nil {
			return x.stats, err
		}
		err = x.extractZip(f, fi.Size())
		if err != nil {
			return x.stats, err
		}
	} else {
		stream, err := tarStream(f, format, br, opts.Threads)
		if err != nil {
			return x.stats, err
		}
		defer stream.Close()
		if err := x.extractTar(stream); err != nil {
			return x.stats, err
		}
	}
	if err := x.finish(); err != nil {
		return x.stats, err
	}
	return x.stats, nil
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

func (x *extractor) extractTar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			// Decode to the end so the compressor's checksums are verified
			// even for bytes after the tar trailer.
			if _, err := x.copyLimited(io.Discard, r); err != nil {
				return fmt.Errorf("after the tar trailer: %w", err)
			}
			return nil
		}
		// Go may flag insecure names itself (GODEBUG tarinsecurepath); our
		// own checks below give the precise refusal, so carry on to them.
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fmt.Errorf("read tar stream: %w", err)
		}
		e := entry{name: hdr.Name, linkname: hdr.Linkname, body: tr, exec: hdr.Mode&0o111 != 0}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
			e.kind = kindRegular
		case tar.TypeDir:
			e.kind = kindDir
		case tar.TypeSymlink:
			e.kind = kindSymlink
		case tar.TypeLink:
			e.kind = kindHardlink
		case tar.TypeChar, tar.TypeBlock:
			return fmt.Errorf("entry %q: device nodes are not allowed", hdr.Name)
		case tar.TypeFifo:
			return fmt.Errorf("entry %q: fifos are not allowed", hdr.Name)
		default:
			return fmt.Errorf("entry %q: unsupported tar entry type %q", hdr.Name, hdr.Typeflag)
		}
		if err := x.add(e); err != nil {
			return err
		}
	}
}

func (x *extractor) extractZip(f io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("read zip directory: %w", err)
	}
	for _, zf := range zr.File {
		mode := zf.Mode()
		e := entry{name: zf.Name, exec: mode&0o111 != 0}
		switch {
		case mode&os.ModeSymlink != 0:
			e.kind = kindSymlink
			target, err := readZipLink(zf)
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

func (x *extractor) addZipEntry(zf *zip.File, e entry) error {
	if e.kind != kindRegular {
		return x.add(e)
	}
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer rc.Close()
	e.body = rc
	return x.add(e)
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
