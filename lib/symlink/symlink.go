// Package symlink resolves paths through symlinks inside a tree, the way
// the kernel does, without ever leaving the tree: the unpacker uses it to
// refuse links that escape, the detector to follow links between files.
package symlink

import (
	"errors"
	"strings"
)

// MaxHops is the kernel's limit on symlinks followed in one lookup (ELOOP).
const MaxHops = 40

var (
	// ErrEscapes: the path climbs above the tree's root with "..".
	ErrEscapes = errors.New("resolves outside the tree")
	// ErrAbsolute: a symlink on the way has an absolute target.
	ErrAbsolute = errors.New("resolves through an absolute symlink")
	// ErrLoop: more than MaxHops symlinks.
	ErrLoop = errors.New("too many levels of symbolic links")
	// ErrDangling: a component does not exist, or a file is used as a
	// directory; the lookup would fail without leaving the tree.
	ErrDangling = errors.New("dangling")
)

// Node is what Resolve needs to know about one path of the tree.
type Node struct {
	Exists, IsSymlink, IsDir bool
	Target                   string // of a symlink
}

// Resolve looks up path (slash-separated) from the directory dir (a list
// of components below the root) and returns the components of what it
// names. lookup describes a path of the tree given as components.
func Resolve(dir []string, path string, lookup func(components []string) Node) ([]string, error) {
	if strings.HasPrefix(path, "/") {
		return nil, ErrAbsolute
	}
	cur := append([]string(nil), dir...)
	pending := strings.Split(path, "/")
	hops := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return nil, ErrEscapes
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, c)
		n := lookup(cur)
		switch {
		case !n.Exists:
			return cur, ErrDangling
		case n.IsSymlink:
			hops++
			if hops > MaxHops {
				return nil, ErrLoop
			}
			if strings.HasPrefix(n.Target, "/") {
				return nil, ErrAbsolute
			}
			cur = cur[:len(cur)-1]
			pending = append(strings.Split(n.Target, "/"), pending...)
		case !n.IsDir && hasMore(pending):
			return cur, ErrDangling
		}
	}
	return cur, nil
}

func hasMore(pending []string) bool {
	for _, c := range pending {
		if c != "" && c != "." {
			return true
		}
	}
	return false
}
