package detector

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixstore"
)

// scan walks root once, depth first in NAR order, feeding every node to
// the NAR hasher and every library-like file to the ELF reader from the
// same mapping of its content: each file is read exactly once.
func scan(root string) (*tree, string, error) {
	t := &tree{nodes: map[string]*node{}}
	h, err := nixstore.NewNarHasher()
	if err != nil {
		return nil, "", err
	}
	if err := t.walk(h, root, ""); err != nil {
		return nil, "", err
	}
	sum, err := h.Sum()
	if err != nil {
		return nil, "", err
	}
	return t, sum, nil
}

func narPath(rel string) string { return "/" + rel }

func (t *tree) walk(h *nixstore.NarHasher, abs, rel string) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	switch mode := fi.Mode(); {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return err
		}
		t.nodes[rel] = &node{kind: kindSymlink, target: target}
		return h.Symlink(narPath(rel), target)
	case mode.IsDir():
		names, err := readDirNames(abs)
		if err != nil {
			return err
		}
		// NAR orders entries by their bytes, as Go's string comparison does.
		sort.Strings(names)
		t.nodes[rel] = &node{kind: kindDir, children: names}
		if err := h.Dir(narPath(rel)); err != nil {
			return err
		}
		for _, name := range names {
			if err := t.walk(h, filepath.Join(abs, name), joinRel(rel, name)); err != nil {
				return err
			}
		}
		return nil
	case mode.IsRegular():
		n := &node{kind: kindFile, exec: mode&0o111 != 0}
		t.nodes[rel] = n
		return withContent(abs, fi.Size(), func(data []byte) error {
			if err := h.FileBytes(narPath(rel), n.exec, data); err != nil {
				return err
			}
			n.file = inspect(rel, data)
			n.usr = findUsr(rel, data)
			return nil
		})
	default:
		return fmt.Errorf("%s: unsupported file type %v (a store path holds only files, directories and symlinks)", abs, mode.Type())
	}
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// withContent maps the file read-only for fn. Mapping rather than reading
// lets the ELF reader jump to section headers and fatbins of a 500 MB
// library without copying it, while the hash streams through it once.
func withContent(path string, size int64, fn func([]byte) error) error {
	if size == 0 {
		return fn(nil)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if int64(int(size)) != size {
		return fmt.Errorf("%s: file too large to map (%d bytes)", path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("map %s: %w", path, err)
	}
	defer syscall.Munmap(data)
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return fn(data)
}
