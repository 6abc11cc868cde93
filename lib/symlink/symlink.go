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
	// ErrBudget: the tree's lookups together took more steps than its
	// Budget allows.
	ErrBudget = errors.New("symlink resolution budget exhausted")
)

// Kind is what a node is.
type Kind uint8

const (
	File Kind = iota + 1
	Dir
	Symlink
)

// Node is one path of a Tree. Data is the caller's.
type Node[T any] struct {
	Name   string
	Parent *Node[T] // nil for the root
	Kind   Kind
	Target string // of a symlink
	Data   T

	children map[string]*Node[T]
	// The memoised resolution of a symlink's target (state resolved).
	state    uint8
	resolved *Node[T]
	hops     int // symlinks followed to resolve Target, this one excluded
	err      error
}

const (
	unresolved uint8 = iota
	resolving
	resolved
)

// Child returns the entry name of the directory n, or nil.
func (n *Node[T]) Child(name string) *Node[T] { return n.children[name] }

// NumChildren is the number of entries of the directory n.
func (n *Node[T]) NumChildren() int { return len(n.children) }

// Path is n's slash-separated path from the root ("" for the root).
func (n *Node[T]) Path() string {
	size := 0
	for p := n; p.Parent != nil; p = p.Parent {
		size += len(p.Name) + 1
	}
	if size == 0 {
		return ""
	}
	b := make([]byte, size-1)
	i := len(b)
	for p := n; p.Parent != nil; p = p.Parent {
		i -= len(p.Name)
		copy(b[i:], p.Name)
		if i > 0 {
			i--
			b[i] = '/'
		}
	}
	return string(b)
}

// Tree is a directory tree with symlinks.
type Tree[T any] struct {
	Root *Node[T]
	// Budget bounds the components all lookups together may step
	// through (0: unbounded). Each symlink's target is walked once, so a
	// budget linear in the tree's size only stops hostile trees.
	Budget int
	steps  int
}

// Steps is the number of components all lookups have stepped through so
// far: the work Budget bounds, which tests hold to the targets' length.
func (t *Tree[T]) Steps() int { return t.steps }

// New returns a tree holding only its root directory.
func New[T any]() *Tree[T] {
	return &Tree[T]{Root: &Node[T]{Kind: Dir, children: map[string]*Node[T]{}}}
}

// Add creates the entry name in the directory parent and returns it. It
// replaces nothing: the caller checks Child first.
func (t *Tree[T]) Add(parent *Node[T], name string, kind Kind, target string) *Node[T] {
	n := &Node[T]{Name: name, Parent: parent, Kind: kind, Target: target}
	if kind == Dir {
		n.children = map[string]*Node[T]{}
	}
	parent.children[name] = n
	return n
}

// Remove deletes n from its parent.
func (t *Tree[T]) Remove(n *Node[T]) {
	delete(n.Parent.children, n.Name)
	n.Parent = nil
}

// MakeRoot makes the directory n the root of the tree: ".." above it
// then escapes. Call it before resolving anything.
func (t *Tree[T]) MakeRoot(n *Node[T]) {
	if n.Parent != nil {
		t.Remove(n)
	}
	n.Name = ""
	t.Root = n
}

// Lookup returns the node at rel without following any symlink, or nil.
func (t *Tree[T]) Lookup(rel string) *Node[T] {
	n := t.Root
	for rel != "" && n != nil {
		var c string
		c, rel, _ = strings.Cut(rel, "/")
		if c == "" || c == "." {
			continue
		}
		n = n.children[c]
	}
	return n
}

// Resolve looks up path (slash-separated) from the directory dir,
// following every symlink on the way and at the end, and returns the node
// it names. On ErrDangling the node returned is the last one that exists.
func (t *Tree[T]) Resolve(dir *Node[T], path string) (*Node[T], error) {
	n, _, err := t.walk(dir, path, 0, 0)
	return n, err
}

// walk resolves path from dir, having followed hops symlinks already, at
// nesting depth nest (symlinks whose resolution is under way).
func (t *Tree[T]) walk(dir *Node[T], path string, hops, nest int) (*Node[T], int, error) {
	if strings.HasPrefix(path, "/") {
		return nil, hops, ErrAbsolute
	}
	cur := dir
	rest := path
	for rest != "" {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		t.steps++
		if t.Budget > 0 && t.steps > t.Budget {
			return nil, hops, ErrBudget
		}
		switch c {
		case "", ".":
			continue
		case "..":
			if cur.Parent == nil {
				return nil, hops, ErrEscapes
			}
			cur = cur.Parent
			continue
		}
		if cur.Kind != Dir {
			return cur, hops, ErrDangling
		}
		next := cur.children[c]
		if next == nil {
			return cur, hops, ErrDangling
		}
		if next.Kind == Symlink {
			target, inner, err := t.follow(next, nest)
			hops += 1 + inner
			err = loopFirst(err, hops)
			if err != nil {
				return target, hops, err
			}
			next = target
		}
		if next.Kind != Dir && hasMore(rest) {
			return next, hops, ErrDangling
		}
		cur = next
	}
	return cur, hops, nil
}

// maxNest bounds the recursion of follow: symlinks whose resolution is
// under way at once. It is well above MaxHops so that an abort proves
// ErrLoop for most links on the way (see follow).
const maxNest = 1024

// errNested aborts a resolution nested maxNest deep.
var errNested = errors.New("nested too deep")

// follow resolves the symlink l once and remembers the result.
func (t *Tree[T]) follow(l *Node[T], nest int) (*Node[T], int, error) {
	switch l.state {
	case resolved:
		return l.resolved, l.hops, l.err
	case resolving:
		return nil, 0, ErrLoop // a cycle: the kernel would go round it forever
	}
	if nest >= maxNest {
		return nil, 0, errNested
	}
	l.state = resolving
	n, hops, err := t.walk(l.Parent, l.Target, 0, nest+1)
	switch {
	case errors.Is(err, errNested) && maxNest-nest > MaxHops:
		// l's target goes through more than MaxHops nested links.
		err = ErrLoop
	case errors.Is(err, errNested), errors.Is(err, ErrBudget):
		// Too close to the abort to know: the caller decides, and a
		// later lookup resolves l afresh.
		l.state = unresolved
		return nil, 0, err
	}
	err = loopFirst(err, hops)
	l.state, l.resolved, l.hops, l.err = resolved, n, hops, err
	return n, hops, err
}

// loopFirst: past MaxHops the kernel stops with ELOOP before it could
// find that the chain dangles at its end.
func loopFirst(err error, hops int) error {
	if hops > MaxHops && (err == nil || errors.Is(err, ErrDangling)) {
		return ErrLoop
	}
	return err
}

func hasMore(rest string) bool {
	for rest != "" {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		if c != "" && c != "." {
			return true
		}
	}
	return false
}
