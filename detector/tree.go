package detector

import (
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
}

// tree indexes the walked nodes by relative path ("" is the root).
type tree struct {
	nodes map[string]*node
}

// resolve follows symlinks, as the kernel would, and returns the path of
// the node rel finally names, or ok=false when it dangles, loops or leaves
// the tree.
func (t *tree) resolve(rel string) (string, bool) {
	c, err := symlink.Resolve(nil, rel, func(c []string) symlink.Node {
		n := t.nodes[strings.Join(c, "/")]
		if n == nil {
			return symlink.Node{}
		}
		return symlink.Node{Exists: true, IsDir: n.kind == kindDir, IsSymlink: n.kind == kindSymlink, Target: n.target}
	})
	if err != nil {
		return "", false
	}
	return strings.Join(c, "/"), true
}

func splitRel(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// follow returns the node rel names after following symlinks.
func (t *tree) follow(rel string) (*node, string) {
	r, ok := t.resolve(rel)
	if !ok {
		return nil, ""
	}
	return t.nodes[r], r
}

func (t *tree) isDir(rel string) bool {
	n, _ := t.follow(rel)
	return n != nil && n.kind == kindDir
}

func (t *tree) isFile(rel string) bool {
	n, _ := t.follow(rel)
	return n != nil && n.kind == kindFile
}

// nonEmptyDir is upstream's DirDetector: rel and each of its parents up to
// the root exist, are directories (through symlinks) and have an entry.
func (t *tree) nonEmptyDir(rel string) bool {
	p := ""
	for _, c := range splitRel(rel) {
		p = path.Join(p, c)
		n, _ := t.follow(p)
		if n == nil || n.kind != kindDir || len(n.children) == 0 {
			return false
		}
	}
	return true
}

// entries lists the children of the directory rel names (through
// symlinks), as paths under rel.
func (t *tree) entries(rel string) []string {
	n, _ := t.follow(rel)
	if n == nil || n.kind != kindDir {
		return nil
	}
	out := make([]string, len(n.children))
	for i, c := range n.children {
		out[i] = path.Join(rel, c)
	}
	return out
}

// files is pathlib's rglob(pattern) with files_only: every path below rel
// (not descending into symlinked directories) that is a file, directly or
// through a symlink, and whose name matches.
func (t *tree) files(rel string, match func(name string) bool) []string {
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		_, real := t.follow(dir)
		for _, p := range t.entries(dir) {
			n := t.nodes[joinRel(real, path.Base(p))]
			if n == nil {
				continue
			}
			if n.kind == kindDir {
				walk(p)
				continue
			}
			if match(path.Base(p)) && t.isFile(p) {
				out = append(out, p)
			}
		}
	}
	walk(rel)
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
