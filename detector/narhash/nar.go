package narhash

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"

	"github.com/nix-community/go-nix/pkg/nixhash"
	"github.com/nix-community/go-nix/pkg/wire"
)

// SRI formats a SHA-256 digest as Nix's SRI string, "sha256-<base64>".
func SRI(digest []byte) (string, error) {
	h, err := nixhash.NewHashWithEncoding(nixhash.SHA256, digest, nixhash.SRI, true)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// NarHasher receives a tree's nodes in NAR order (depth first, entries of a
// directory sorted by name) and hashes their NAR serialisation. It lets a
// caller that already walks and reads a tree hash it in the same pass.
//
// It writes the format with go-nix's wire encoding, synchronously: go-nix's
// nar.Writer hands every header to a goroutine, which costs two context
// switches per entry, a third of the time on trees of many small files.
// Tests hold it to nar.DumpPath and to `nix hash path`.
//
// Paths are NAR paths: "/" for the root, "/lib/libfoo.so" below it.
type NarHasher struct {
	sum   hash.Hash // nil for NewKnown's
	out   io.Writer // what the serialisation is written to: sum, or io.Discard
	known string    // NewKnown's hash, in SRI form
	open  []openDir // directories whose entries are being written
	begun bool
	done  bool
}

type openDir struct {
	path string // NAR path
	last string // name of the last entry written in it
}

// NewNarHasher starts a NAR serialisation that feeds a SHA-256 hash.
func NewNarHasher() (*NarHasher, error) {
	sum := sha256.New()
	if err := wire.WriteString(sum, narMagic); err != nil {
		return nil, err
	}
	return &NarHasher{sum: sum, out: sum}, nil
}

// NewKnown is a NarHasher for a tree whose NAR hash is already known: Nix
// computed it when it registered the tree, and tells a builder (see
// builderattrs.NarHashOf). It checks the order of the nodes and hands
// file content to visitors as NewNarHasher's does, but hashes nothing;
// Sum returns narHash, which may be given in any of Nix's encodings of a
// SHA-256 hash, in SRI form.
func NewKnown(narHash string) (*NarHasher, error) {
	algo := nixhash.SHA256
	h, err := nixhash.ParseAny(narHash, &algo)
	if err != nil {
		return nil, fmt.Errorf("NAR hash %q: %w", narHash, err)
	}
	sri, err := SRI(h.Digest())
	if err != nil {
		return nil, err
	}
	return &NarHasher{out: io.Discard, known: sri}, nil
}

const narMagic = "nix-archive-1"

func (n *NarHasher) strings(ss ...string) error {
	for _, s := range ss {
		if err := wire.WriteString(n.out, s); err != nil {
			return err
		}
	}
	return nil
}

// begin closes the directories that path is not in, checks the order, and
// opens the node: "(" "type" kind, preceded by its directory entry.
func (n *NarHasher) begin(p, kind string) error {
	if n.done {
		return fmt.Errorf("nar %s: after Sum", p)
	}
	if !n.begun {
		if p != "/" {
			return fmt.Errorf("nar %s: the first node must be the root /", p)
		}
		n.begun = true
		return n.strings("(", "type", kind)
	}
	parent, name, err := splitNode(p)
	if err != nil {
		return err
	}
	for len(n.open) > 0 && n.open[len(n.open)-1].path != parent {
		if err := n.closeDir(); err != nil {
			return err
		}
	}
	if len(n.open) == 0 {
		return fmt.Errorf("nar %s: its directory %s is not open (nodes out of NAR order)", p, parent)
	}
	top := &n.open[len(n.open)-1]
	if top.last != "" && name <= top.last {
		return fmt.Errorf("nar %s: entries out of order (%q after %q)", p, name, top.last)
	}
	top.last = name
	return n.strings("entry", "(", "name", name, "node", "(", "type", kind)
}

// splitNode is a node's path below the root as its directory and name.
func splitNode(p string) (parent, name string, err error) {
	if !strings.HasPrefix(p, "/") || p == "/" || strings.HasSuffix(p, "/") {
		return "", "", fmt.Errorf("nar %s: not a path below the root", p)
	}
	parent, name = path.Split(p)
	parent = strings.TrimSuffix(parent, "/")
	if parent == "" {
		parent = "/"
	}
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, 0) {
		return "", "", fmt.Errorf("nar %s: invalid name", p)
	}
	return parent, name, nil
}

// end closes a node, and its directory entry below the root.
func (n *NarHasher) end() error {
	if len(n.open) == 0 {
		return n.strings(")")
	}
	return n.strings(")", ")")
}

func (n *NarHasher) closeDir() error {
	n.open = n.open[:len(n.open)-1]
	return n.end()
}

// Dir adds a directory.
func (n *NarHasher) Dir(p string) error {
	if err := n.begin(p, "directory"); err != nil {
		return err
	}
	n.open = append(n.open, openDir{path: p})
	return nil
}

// Symlink adds a symlink with its target.
func (n *NarHasher) Symlink(p, target string) error {
	if target == "" {
		return fmt.Errorf("nar %s: empty symlink target", p)
	}
	if err := n.begin(p, "symlink"); err != nil {
		return err
	}
	if err := n.strings("target", target); err != nil {
		return err
	}
	return n.end()
}

func (n *NarHasher) fileHeader(p string, executable bool) error {
	if err := n.begin(p, "regular"); err != nil {
		return err
	}
	if executable {
		if err := n.strings("executable", ""); err != nil {
			return err
		}
	}
	return n.strings("contents")
}

// FileFrom adds a regular file whose size bytes of content are read from r
// into buf, a piece at a time. visit, when not nil, sees each piece right
// after it is hashed, while it is still in the CPU's cache. Reading a
// large file this way costs less than mapping it: the kernel copies into
// one buffer that stays in cache instead of mapping every page of the
// file, and unmapping them all again.
func (n *NarHasher) FileFrom(p string, executable bool, size int64, r io.Reader, buf []byte, visit func(piece []byte)) error {
	if len(buf) == 0 {
		return fmt.Errorf("nar: file %s: empty read buffer", p)
	}
	if err := n.fileHeader(p, executable); err != nil {
		return err
	}
	if err := wire.WriteUint64(n.out, uint64(size)); err != nil {
		return err
	}
	for done := int64(0); done < size; {
		piece := buf[:min(int64(len(buf)), size-done)]
		got, err := io.ReadFull(r, piece)
		if err != nil {
			return fmt.Errorf("nar %s: %d of %d bytes: %w", p, done+int64(got), size, err)
		}
		if _, err := n.out.Write(piece); err != nil {
			return err
		}
		if visit != nil {
			visit(piece)
		}
		done += int64(got)
	}
	if pad := (8 - size%8) % 8; pad > 0 {
		if _, err := n.out.Write(zeros[:pad]); err != nil {
			return err
		}
	}
	return n.end()
}

// FileBytes adds a regular file with the given content.
func (n *NarHasher) FileBytes(p string, executable bool, content []byte) error {
	return n.FileBytesVisit(p, executable, content, max(len(content), 1), func(int, int) {})
}

// zeros pads a file's content to a multiple of 8 bytes, as the NAR wire
// format does.
var zeros [8]byte

// FileBytesVisit is FileBytes that hands content to visit in pieces of at
// most chunk bytes (as offsets into content), each right after hashing
// it: a caller that also scans the content finds the piece still in the
// CPU's cache instead of reading a large file from memory twice.
func (n *NarHasher) FileBytesVisit(p string, executable bool, content []byte, chunk int, visit func(start, end int)) error {
	if chunk <= 0 {
		return fmt.Errorf("nar: file %s: piece size %d, want > 0", p, chunk)
	}
	if err := n.fileHeader(p, executable); err != nil {
		return err
	}
	if err := wire.WriteUint64(n.out, uint64(len(content))); err != nil {
		return err
	}
	for start := 0; start < len(content); start += chunk {
		end := min(start+chunk, len(content))
		if _, err := n.out.Write(content[start:end]); err != nil {
			return err
		}
		visit(start, end)
	}
	if pad := (8 - len(content)%8) % 8; pad > 0 {
		if _, err := n.out.Write(zeros[:pad]); err != nil {
			return err
		}
	}
	return n.end()
}

// Sum finishes the serialisation and returns its hash in SRI form.
func (n *NarHasher) Sum() (string, error) {
	if !n.begun {
		return "", errors.New("nar: empty (no root node)")
	}
	for len(n.open) > 0 {
		if err := n.closeDir(); err != nil {
			return "", err
		}
	}
	n.done = true
	if n.sum == nil {
		return n.known, nil
	}
	return SRI(n.sum.Sum(nil))
}
