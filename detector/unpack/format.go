package unpack

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack/xz"
)

// Format is an archive container/compression pair recognised by content.
type Format int

const (
	FormatUnknown Format = iota
	FormatTar
	FormatTarXz
	FormatTarGz
	FormatTarBz2
	FormatZip
	FormatTarZst
)

func (f Format) String() string {
	switch f {
	case FormatTar:
		return "tar"
	case FormatTarXz:
		return "tar.xz"
	case FormatTarGz:
		return "tar.gz"
	case FormatTarBz2:
		return "tar.bz2"
	case FormatZip:
		return "zip"
	case FormatTarZst:
		return "tar.zst"
	default:
		return "unknown"
	}
}

var (
	magicXz    = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	magicGzip  = []byte{0x1F, 0x8B}
	magicBzip2 = []byte("BZh")
	magicZstd  = []byte{0x28, 0xB5, 0x2F, 0xFD} // RFC 8878 3.1.1: 0xFD2FB528, little-endian
	magicZip   = []byte("PK\x03\x04")
	magicZipE  = []byte("PK\x05\x06") // an empty zip is only an end-of-central-directory record
	magicUstar = []byte("ustar")
)

// DetectFormat names the format of an archive from its first bytes. File
// names lie (NVIDIA has shipped .tar.gz under other names); magic bytes do not.
func DetectFormat(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, magicXz):
		return FormatTarXz
	case bytes.HasPrefix(head, magicGzip):
		return FormatTarGz
	case bytes.HasPrefix(head, magicBzip2):
		return FormatTarBz2
	case bytes.HasPrefix(head, magicZstd), isZstdSkippable(head):
		return FormatTarZst
	case bytes.HasPrefix(head, magicZip), bytes.HasPrefix(head, magicZipE):
		return FormatZip
	case len(head) >= 262 && bytes.Equal(head[257:262], magicUstar):
		return FormatTar
	}
	return FormatUnknown
}

// isZstdSkippable tells whether head starts with a zstd skippable frame
// (RFC 8878 3.1.2: magic 0x184D2A50 to 0x184D2A5F, little-endian). The
// spec lets one stand anywhere in a stream, first included, so it marks a
// zstd stream as much as a frame's own magic does; the decoder skips it
// and refuses the stream if what follows is not zstd.
func isZstdSkippable(head []byte) bool {
	return len(head) >= 4 && head[0]&0xF0 == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18
}

// MaxZstdWindow bounds the window a zstd frame may ask for: the memory
// its decoder holds. 128 MiB is what the zstd tool decodes without
// --long or --memory (its default window log limit, 27), so every archive
// `zstd -d` unpacks as given is accepted, and a frame header cannot make
// the decoder allocate gigabytes.
const MaxZstdWindow = 128 << 20

// newZstdReader decodes a zstd stream (all its frames; skippable frames
// are skipped) on the caller's goroutine, verifying each frame's checksum
// when it has one. A frame asking for a window over MaxZstdWindow is
// refused before anything is allocated for it.
func newZstdReader(r io.Reader) (io.Reader, error) {
	d, err := zstd.NewReader(r,
		zstd.WithDecoderConcurrency(1), // synchronous: no goroutines to stop
		zstd.WithDecoderMaxWindow(MaxZstdWindow),
		zstd.WithDecoderMaxMemory(MaxZstdWindow),
		zstd.WithDecoderLowmem(true),
	)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return zstdReader{d}, nil
}

// zstdReader names zstd in the decoder's errors.
type zstdReader struct{ d *zstd.Decoder }

func (z zstdReader) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if err != nil && err != io.EOF {
		err = ZstdError{err}
	}
	return n, err
}

// ZstdError is a failure of the zstd decoder: a corrupt or truncated
// stream, a checksum mismatch, a window over MaxZstdWindow.
type ZstdError struct{ Err error }

func (e ZstdError) Error() string { return "zstd: " + e.Err.Error() }
func (e ZstdError) Unwrap() error { return e.Err }

// decompressor wraps r (positioned at the start of the archive) in the
// decoder that f needs, yielding the tar stream.
func decompressor(f Format, r *bufio.Reader) (io.Reader, error) {
	switch f {
	case FormatTar:
		return r, nil
	case FormatTarXz:
		d, err := xz.NewReader(r, 0)
		if err != nil {
			return nil, fmt.Errorf("xz: %w", err)
		}
		return d, nil
	case FormatTarGz:
		d, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return d, nil
	case FormatTarBz2:
		return bzip2.NewReader(r), nil
	case FormatTarZst:
		return newZstdReader(r)
	}
	return nil, fmt.Errorf("no stream decoder for %s", f)
}
