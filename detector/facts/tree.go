package facts

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/symlink"
)

type nodeKind int

const (
	kindFile nodeKind = iota + 1
	kindDir
	kindSymlink
)

// node is what the walk learnt about one path. The rules run on these
// nodes only, so the tree is read from disk exactly once.
type node struct {
	kind     nodeKind
	exec     bool
	target   string   // symlink target
	children []string // directory entries, sorted
	file     *fileInfo
	usr      usrReference // for buildRedist's /usr/ check
	fs       *fsNode      // the node in the linked tree, for lookups
}

type fsNode = symlink.Node[*node]

// tree indexes the walked nodes by relative path ("" is the root), and
// links them as a tree so that a lookup costs one step per component and
// each symlink is resolved once.
type tree struct {
	nodes       map[string]*node
	fs          *symlink.Tree[*node]
	targetBytes int   // of all symlink targets, to size the budget
	err         error // the first lookup that ran out of budget
	// contentBytes are the bytes of names, symlink targets and files
	// (a hard-linked file once): what the detail budget is sized by.
	contentBytes int
	linked       map[fileID]*node // the first node of each hard-linked file
	detail       detailBudget
	// usrScanned are the bytes of .pc files the /usr/ search looked at
	// (findUsr), which the tests bound by the files' size.
	usrScanned int
}

func newTree() *tree {
	return &tree{nodes: map[string]*node{}, fs: symlink.New[*node](), linked: map[fileID]*node{}}
}

// addContent counts a file's bytes towards contentBytes, unless it is a
// hard link to a file read before: that file's node is returned.
func (t *tree) addContent(it walkItem) *node {
	if it.id != (fileID{}) {
		if first := t.linked[it.id]; first != nil {
			return first
		}
		t.linked[it.id] = t.nodes[it.rel]
	}
	t.contentBytes += int(it.size)
	return nil
}

// add records n at rel; the walk adds a directory before its entries.
func (t *tree) add(rel string, n *node) error {
	t.nodes[rel] = n
	if rel == "" {
		n.fs = t.fs.Root
		n.fs.Data = n
		return nil
	}
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	parent := t.nodes[dir]
	if parent == nil || parent.kind != kindDir {
		return fmt.Errorf("walk order: %q before its directory", rel)
	}
	kind := map[nodeKind]symlink.Kind{kindFile: symlink.File, kindDir: symlink.Dir, kindSymlink: symlink.Symlink}[n.kind]
	n.fs = t.fs.Add(parent.fs, name, kind, n.target)
	n.fs.Data = n
	t.targetBytes += len(n.target)
	t.contentBytes += len(name) + len(n.target)
	return nil
}

// setBudget bounds the steps of all lookups: the rules resolve each path
// a few times and each symlink once, so this stops only hostile trees.
func (t *tree) setBudget() {
	t.fs.Budget = 1<<22 + 64*(len(t.nodes)+t.targetBytes)
	t.detail.limit = DetailBase + t.contentBytes
}

// lookup follows symlinks, as the kernel would, and returns the node rel
// finally names, or nil when it dangles, loops or leaves the tree.
func (t *tree) lookup(rel string) *fsNode {
	n, err := t.fs.Resolve(t.fs.Root, rel)
	return t.checked(n, err)
}

// followLink is what the symlink (or other node) n names.
func (t *tree) followLink(n *fsNode) *fsNode {
	if n.Kind != symlink.Symlink {
		return n
	}
	r, err := t.fs.Resolve(n.Parent, n.Name)
	return t.checked(r, err)
}

func (t *tree) checked(n *fsNode, err error) *fsNode {
	if errors.Is(err, symlink.ErrBudget) && t.err == nil {
		t.err = err
	}
	if err != nil {
		return nil
	}
	return n
}

// resolve is lookup giving the final node's path.
func (t *tree) resolve(rel string) (string, bool) {
	n := t.lookup(rel)
	if n == nil {
		return "", false
	}
	return n.Path(), true
}

// follow returns the node rel names after following symlinks.
func (t *tree) follow(rel string) (*node, string) {
	n := t.lookup(rel)
	if n == nil {
		return nil, ""
	}
	return n.Data, n.Path()
}

func (t *tree) isDir(rel string) bool {
	n := t.lookup(rel)
	return n != nil && n.Kind == symlink.Dir
}

func (t *tree) isFile(rel string) bool {
	n := t.lookup(rel)
	return n != nil && n.Kind == symlink.File
}

// nonEmptyDir is upstream's DirDetector: rel and each of its parents up to
// the root exist, are directories (through symlinks) and have an entry.
func (t *tree) nonEmptyDir(rel string) bool {
	n := t.fs.Root
	for rest := rel; rest != ""; {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		r, err := t.fs.Resolve(n, c)
		if n = t.checked(r, err); n == nil || n.Kind != symlink.Dir || n.NumChildren() == 0 {
			return false
		}
	}
	return true
}

// entries lists the children of the directory rel names (through
// symlinks), as paths under rel.
func (t *tree) entries(rel string) []string {
	n := t.lookup(rel)
	if n == nil || n.Kind != symlink.Dir {
		return nil
	}
	out := make([]string, len(n.Data.children))
	for i, c := range n.Data.children {
		out[i] = path.Join(rel, c)
	}
	return out
}

// files is pathlib's rglob(pattern) with files_only: every path below rel
// (not descending into symlinked directories) that is a file, directly or
// through a symlink, and whose name matches. It walks the linked nodes,
// building a path only for what it returns.
func (t *tree) files(rel string, match func(name string) bool) []string {
	start := t.lookup(rel)
	if start == nil || start.Kind != symlink.Dir {
		return nil
	}
	var out []string
	buf := []byte(rel)
	var walk func(dir *fsNode)
	walk = func(dir *fsNode) {
		mark := len(buf)
		for _, name := range dir.Data.children {
			c := dir.Child(name)
			if c == nil {
				continue
			}
			buf = buf[:mark]
			if len(buf) > 0 {
				buf = append(buf, '/')
			}
			buf = append(buf, name...)
			if c.Kind == symlink.Dir {
				walk(c)
				continue
			}
			if !match(name) {
				continue
			}
			if f := t.followLink(c); f != nil && f.Kind == symlink.File {
				out = append(out, string(buf))
			}
		}
		buf = buf[:mark]
	}
	walk(start)
	sort.Strings(out)
	return out
}

func hasSuffix(suffixes ...string) func(string) bool {
	return func(name string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(name, s) && len(name) > len(s) {
				return true
			}
		}
		return false
	}
}
