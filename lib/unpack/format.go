package unpack

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/nix-cuda/cuda-redist-find-features/lib/unpack/xz"
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
	default:
		return "unknown"
	}
}

var (
	magicXz    = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	magicGzip  = []byte{0x1F, 0x8B}
	magicBzip2 = []byte("BZh")
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
	case bytes.HasPrefix(head, magicZip), bytes.HasPrefix(head, magicZipE):
		return FormatZip
	case len(head) >= 262 && bytes.Equal(head[257:262], magicUstar):
		return FormatTar
	}
	return FormatUnknown
}

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
	}
	return nil, fmt.Errorf("no stream decoder for %s", f)
}
