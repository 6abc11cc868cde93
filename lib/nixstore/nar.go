// Package nixstore computes what Nix computes for a store path: the NAR
// serialisation of a tree and its SHA-256 hash in SRI form, as printed by
// `nix hash path` and `nix path-info --json` (narHash).
package nixstore

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"

	"github.com/nix-community/go-nix/pkg/nar"
	"github.com/nix-community/go-nix/pkg/nixhash"
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
// Paths are NAR paths: "/" for the root, "/lib/libfoo.so" below it.
type NarHasher struct {
	sum hash.Hash
	w   *nar.Writer
}

// NewNarHasher starts a NAR serialisation that feeds a SHA-256 hash.
func NewNarHasher() (*NarHasher, error) {
	sum := sha256.New()
	w, err := nar.NewWriter(sum)
	if err != nil {
		return nil, err
	}
	return &NarHasher{sum: sum, w: w}, nil
}

// Dir adds a directory.
func (n *NarHasher) Dir(path string) error {
	return n.header(&nar.Header{Path: path, Type: nar.TypeDirectory})
}

// Symlink adds a symlink with its target.
func (n *NarHasher) Symlink(path, target string) error {
	return n.header(&nar.Header{Path: path, Type: nar.TypeSymlink, LinkTarget: target})
}

// File adds a regular file whose size bytes of content follow in r.
func (n *NarHasher) File(path string, executable bool, size int64, r io.Reader) error {
	if err := n.header(&nar.Header{Path: path, Type: nar.TypeRegular, Size: size, Executable: executable}); err != nil {
		return err
	}
	if _, err := io.Copy(n.w, r); err != nil {
		return fmt.Errorf("nar %s: %w", path, err)
	}
	return nil
}

// FileBytes adds a regular file with the given content.
func (n *NarHasher) FileBytes(path string, executable bool, content []byte) error {
	if err := n.header(&nar.Header{Path: path, Type: nar.TypeRegular, Size: int64(len(content)), Executable: executable}); err != nil {
		return err
	}
	if _, err := n.w.Write(content); err != nil {
		return fmt.Errorf("nar %s: %w", path, err)
	}
	return nil
}

func (n *NarHasher) header(h *nar.Header) error {
	if err := n.w.WriteHeader(h); err != nil {
		return fmt.Errorf("nar %s: %w", h.Path, err)
	}
	return nil
}

// Sum finishes the serialisation and returns its hash in SRI form.
func (n *NarHasher) Sum() (string, error) {
	if err := n.w.Close(); err != nil {
		return "", fmt.Errorf("nar: %w", err)
	}
	return SRI(n.sum.Sum(nil))
}

// HashPath returns the SRI NAR hash of the tree at path, like
// `nix hash path --type sha256 --sri PATH`.
func HashPath(path string) (string, error) {
	sum := sha256.New()
	if err := nar.DumpPath(sum, path); err != nil {
		return "", fmt.Errorf("nar hash %s: %w", path, err)
	}
	return SRI(sum.Sum(nil))
}
