// Package testarchive builds archives from a list of entries, for tests and
// for the bundled sample: every fixture archive is generated, never an
// opaque committed blob.
package testarchive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/ulikunitz/xz"
)

// Kind is the type of an Entry.
type Kind byte

const (
	File     Kind = tar.TypeReg
	Dir      Kind = tar.TypeDir
	Symlink  Kind = tar.TypeSymlink
	Hardlink Kind = tar.TypeLink
	Fifo     Kind = tar.TypeFifo
	CharDev  Kind = tar.TypeChar
)

// Entry is one archive member. Link is the target of a symlink or hard link.
type Entry struct {
	Name string
	Kind Kind
	Body []byte
	Mode int64
	Link string
}

// F is a regular file entry with mode 0644.
func F(name, body string) Entry {
	return Entry{Name: name, Kind: File, Body: []byte(body), Mode: 0o644}
}

// X is an executable file entry.
func X(name, body string) Entry {
	return Entry{Name: name, Kind: File, Body: []byte(body), Mode: 0o755}
}

// B is a regular file entry with binary content.
func B(name string, body []byte) Entry { return Entry{Name: name, Kind: File, Body: body, Mode: 0o644} }

// D is a directory entry.
func D(name string) Entry { return Entry{Name: name, Kind: Dir, Mode: 0o755} }

// L is a symlink entry.
func L(name, target string) Entry { return Entry{Name: name, Kind: Symlink, Link: target, Mode: 0o777} }

// epoch keeps generated archives byte-identical from run to run.
var epoch = time.Unix(1_000_000_000, 0)

// Tar returns an uncompressed tar of entries, in the given order.
func Tar(entries []Entry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{
			Name: e.Name, Typeflag: byte(e.Kind), Mode: e.Mode, Linkname: e.Link,
			ModTime: epoch, Uid: 1000, Gid: 1000, Uname: "nvidia", Gname: "nvidia", Format: tar.FormatPAX,
		}
		if e.Kind == File {
			hdr.Size = int64(len(e.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			panic(fmt.Sprintf("testarchive: %s: %v", e.Name, err))
		}
		if e.Kind == File {
			if _, err := tw.Write(e.Body); err != nil {
				panic(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TarXz is Tar compressed with xz, in one block.
func TarXz(entries []Entry) []byte {
	return TarXzBlocks(entries, 0)
}

// TarGz is Tar compressed with gzip.
func TarGz(entries []Entry) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.ModTime = epoch
	w.Write(Tar(entries))
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TarBz2 is Tar compressed with the bzip2 command (Go has no bzip2 writer).
func TarBz2(entries []Entry) ([]byte, error) {
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(Tar(entries))
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("bzip2: %w", err)
	}
	return out, nil
}

// Zip returns a zip archive of entries. Symlinks are stored the Info-ZIP
// way: mode in the external attributes, target as the content.
func Zip(entries []Entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: epoch}
		body := e.Body
		switch e.Kind {
		case Dir:
			fh.SetMode(os.ModeDir | 0o755)
			if fh.Name[len(fh.Name)-1] != '/' {
				fh.Name += "/"
			}
		case Symlink:
			fh.SetMode(os.ModeSymlink | 0o777)
			body = []byte(e.Link)
		default:
			fh.SetMode(os.FileMode(e.Mode))
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			panic(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Sorted returns entries sorted by name, parents before children.
func Sorted(entries []Entry) []Entry {
	out := append([]Entry(nil), entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WriteTree creates entries below root on disk (files, directories and
// symlinks; parents are created as needed), for tests that need a tree
// rather than an archive.
func WriteTree(root string, entries []Entry) error {
	for _, e := range entries {
		p := filepath.Join(root, filepath.FromSlash(e.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		switch e.Kind {
		case Dir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case Symlink:
			if err := os.Symlink(e.Link, p); err != nil {
				return err
			}
		case File:
			if err := os.WriteFile(p, e.Body, os.FileMode(e.Mode)); err != nil {
				return err
			}
			if err := os.Chmod(p, os.FileMode(e.Mode)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("WriteTree: %s: unsupported kind %q", e.Name, e.Kind)
		}
	}
	return nil
}

// TarXzBlocks is Tar compressed with xz in blocks of blockSize bytes, as
// multi-threaded xz (xz -T0) writes it; 0 means one block.
func TarXzBlocks(entries []Entry, blockSize int64) []byte {
	var buf bytes.Buffer
	w, err := xz.WriterConfig{BlockSize: blockSize}.NewWriter(&buf)
	if err != nil {
		panic(err)
	}
	w.Write(Tar(entries))
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
