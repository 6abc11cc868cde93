// Package inputfile opens the files a user names (manifests, records,
// feature files, soname indexes, local archives) so that a special file
// is refused by name before anything is read: a FIFO would block the
// run for ever, /dev/zero or /proc/self/mem would fill memory. The
// bounds are docs/safety.md's ("Input files").
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Bounds of the files read whole; docs/safety.md gives the real sizes.
const (
	// MaxManifest bounds a manifest (NVIDIA's largest is about 100 KB),
	// as download-manifests bounds the one it fetches.
	MaxManifest = 64 << 20
	// MaxRecord bounds an unpacked-hashes.json: about 200 bytes an
	// archive, 1.5 MB for every archive NVIDIA lists.
	MaxRecord = 16 << 20
	// MaxDocument bounds a feature, index, detail, buildRedist or report
	// file (an index of all CUDA is about 10 MB).
	MaxDocument = 256 << 20
)

// Open opens path for reading when it is a regular file (a symbolic link
// is followed to one), and refuses anything else by name, without
// blocking: the open is non-blocking (a FIFO with no writer returns at
// once) and the opened file is checked again, so a file swapped for a
// FIFO in between is refused too.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err == nil {
		err = regular(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path whole, refusing one of more than
// max bytes before reading it (and one that grows past max meanwhile).
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, tooLarge(path, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, max)
	}
	return data, nil
}

// ErrNotRegular is what a special file is refused with.
var ErrNotRegular = errors.New("not a regular file")

func regular(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
}

// Kind names what a file that is not a regular one is, as the refusals
// say it ("a named pipe (FIFO)").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a file of type " + m.Type().String()
}

func tooLarge(path string, max int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes, the bound of such a file (docs/safety.md)", max)}
}
