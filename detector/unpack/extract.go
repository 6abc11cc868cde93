package unpack

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nix-cuda/cuda-redist-find-features/lib/symlink"
)

type entryKind int

const (
	// kindNone: a member that holds no file (a tar global header).
	kindNone entryKind = iota
	kindRegular
	kindDir
	kindSymlink
	kindHardlink
)

func (k entryKind) String() string {
	return [...]string{"?", "file", "directory", "symlink", "hard link"}[k]
}

// entry is one archive member, independent of the container format.
type entry struct {
	name     string
	kind     entryKind
	exec     bool
	linkname string    // symlink target, or hard link source (an archive path)
	size     int64     // content size the header declares (-1: unknown)
	body     io.Reader // content of a regular file
}

// meta is what the extractor remembers of a path it wrote.
type meta struct {
	kind entryKind
	exec bool
	size int64 // of a regular file: what a hard link to it adds to the NAR
}

type node = symlink.Node[meta]

// extractor writes entries below root, refusing anything that could reach
// outside it. It never follows a symlink while writing: every parent of a
// written path is checked to be a real directory created by this run.
//
// It keeps the tree it wrote in memory, so each path costs one lookup of
// its parent directory (cached by path) and the symlink check at the end
// resolves each link once, without touching the disk.
type extractor struct {
	root        string
	createdRoot bool // root did not exist before: remove it on failure
	opts        Options
	stats       Stats
	count       int                 // inodes created and headers repeated: what MaxEntries bounds
	tree        *symlink.Tree[meta] // what was written, as the archive names it
	dirs        map[string]*node    // directories written, by cleaned relative path
	symlinks    []*node             // checked at the end
	targetBytes int                 // of all symlink targets: sizes the resolution budget
	buf         []byte
}

func newExtractor(dst string, opts Options) (*extractor, error) {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return nil, err
	}
	created, err := prepareRoot(abs)
	if err != nil {
		return nil, err
	}
	tree := symlink.New[meta]()
	tree.Root.Data.kind = kindDir
	return &extractor{
		root:        abs,
		createdRoot: created,
		opts:        opts,
		tree:        tree,
		dirs:        map[string]*node{"": tree.Root},
		buf:         make([]byte, 1<<20),
	}, nil
}

// prepareRoot creates dst, or accepts it when it is an empty directory.
// created tells which.
func prepareRoot(dst string) (created bool, err error) {
	err = os.Mkdir(dst, 0o755)
	if err == nil {
		return true, os.Chmod(dst, 0o755)
	}
	if !errors.Is(err, os.ErrExist) {
		return false, fmt.Errorf("create output: %w", err)
	}
	fi, err := os.Lstat(dst)
	if err != nil {
		return false, fmt.Errorf("create output: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("output %s exists and is not a directory", dst)
	}
	names, err := readDirNames(dst)
	if err != nil {
		return false, fmt.Errorf("create output: %w", err)
	}
	if len(names) > 0 {
		return false, fmt.Errorf("output %s is not empty", dst)
	}
	return false, nil
}

// removeAll undoes a refused extraction: the output is removed when this
// run created it, else emptied. os.RemoveAll unlinks symlinks without
// following them, so a link that points outside cannot lead it there.
func (x *extractor) removeAll() error {
	if x.createdRoot {
		return os.RemoveAll(x.root)
	}
	names, err := readDirNames(x.root)
	for _, n := range names {
		if rerr := os.RemoveAll(filepath.Join(x.root, n)); err == nil {
			err = rerr
		}
	}
	return err
}

// cleanName turns an archive member name into a clean relative path, or
// refuses it. "" means the archive root itself ("./").
func cleanName(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty name")
	}
	if strings.HasPrefix(name, "/") {
		return "", errors.New("absolute path")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", errors.New("NUL byte in name")
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return "", errors.New("path escapes the output with '..'")
		}
	}
	p := path.Clean(name)
	if p == "." {
		return "", nil
	}
	return p, nil
}

// pathMax is Linux's PATH_MAX: longer paths cannot be written by name.
const pathMax = 4096

// countInode charges one created inode (or a header that creates nothing:
// a repeat, the root, a global header) to MaxEntries. It runs before the
// entry is written, so the archive is refused at the first entry too many.
func (x *extractor) countInode() error {
	x.count++
	if x.count > x.opts.MaxEntries {
		return fmt.Errorf("%w: archive has more than %d entries (files, directories and links, implicit parent directories and headers that create nothing included; --max-entries)", ErrLimit, x.opts.MaxEntries)
	}
	return nil
}

func (x *extractor) add(e entry) error {
	if err := x.addEntry(e); err != nil {
		return fmt.Errorf("entry %q: %w", e.name, err)
	}
	return nil
}

func (x *extractor) addEntry(e entry) error {
	rel, err := cleanName(e.name)
	if err != nil {
		return err
	}
	if rel == "" {
		if e.kind == kindDir {
			// The archive's own root ("./"): creates nothing, but a
			// million of them cost work, so each counts like a repeat.
			return x.countInode()
		}
		return fmt.Errorf("a %s cannot be the archive root", e.kind)
	}
	if depth := strings.Count(rel, "/") + 1; depth > x.opts.MaxDepth {
		return fmt.Errorf("%w: %d path components, more than %d (--max-depth)", ErrLimit, depth, x.opts.MaxDepth)
	}
	if len(x.root)+1+len(rel) >= pathMax {
		return fmt.Errorf("%w: path longer than %d bytes in the output", ErrLimit, pathMax)
	}
	dirRel, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dirRel, name = rel[:i], rel[i+1:]
	}
	parent, err := x.mkParents(dirRel)
	if err != nil {
		return err
	}
	prev := parent.Child(name)
	if prev != nil {
		// A repeated header creates nothing but costs work: count it too.
		if err := x.countInode(); err != nil {
			return err
		}
	}
	switch e.kind {
	case kindDir:
		return x.addDir(parent, prev, rel, name)
	case kindRegular:
		return x.addFile(parent, prev, rel, name, e)
	case kindSymlink:
		return x.addSymlink(parent, prev, rel, name, e.linkname)
	case kindHardlink:
		return x.addHardlink(parent, prev, rel, name, e.linkname)
	}
	return fmt.Errorf("unknown entry kind %d", e.kind)
}

// mkParents returns the directory dirRel, creating it and its missing
// parents, refusing a parent that is anything but a directory this
// extraction made. Each directory is created once and cached by path, so
// an entry costs one lookup when its parent exists.
func (x *extractor) mkParents(dirRel string) (*node, error) {
	x.stats.work.dirLookups++
	if n := x.dirs[dirRel]; n != nil {
		return n, nil
	}
	// Find the deepest directory already made, then create downwards.
	known := dirRel
	var n *node
	for {
		i := strings.LastIndexByte(known, '/')
		if i < 0 {
			known = ""
		} else {
			known = known[:i]
		}
		x.stats.work.dirLookups++
		if n = x.dirs[known]; n != nil {
			break
		}
	}
	rest := dirRel
	if known != "" {
		rest = dirRel[len(known)+1:]
	}
	p := known
	for rest != "" {
		var c string
		c, rest, _ = strings.Cut(rest, "/")
		p = joinRel(p, c)
		if child := n.Child(c); child != nil {
			// Not in the cache, so not a directory.
			return nil, fmt.Errorf("parent %q is a %s, not a directory", p, child.Data.kind)
		}
		var err error
		if n, err = x.mkdir(n, p, c); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (x *extractor) mkdir(parent *node, rel, name string) (*node, error) {
	if err := x.countInode(); err != nil {
		return nil, err
	}
	full := filepath.Join(x.root, rel)
	if err := os.Mkdir(full, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(full, 0o755); err != nil {
		return nil, err
	}
	n := x.tree.Add(parent, name, symlink.Dir, "")
	n.Data.kind = kindDir
	x.dirs[rel] = n
	x.stats.Dirs++
	return n, nil
}

func (x *extractor) addDir(parent, prev *node, rel, name string) error {
	if prev != nil {
		if prev.Data.kind == kindDir {
			return nil
		}
		return fmt.Errorf("duplicate entry: a directory where a %s was", prev.Data.kind)
	}
	_, err := x.mkdir(parent, rel, name)
	return err
}

func fileMode(exec bool) os.FileMode {
	if exec {
		return 0o755
	}
	return 0o644
}

func (x *extractor) addFile(parent, prev *node, rel, name string, e entry) error {
	full := filepath.Join(x.root, rel)
	// A header's size counts before anything is written: a sparse entry
	// counts at its full size, so it cannot write gigabytes of holes.
	if e.size > 0 && e.size > x.opts.MaxBytes-x.stats.Bytes {
		return fmt.Errorf("%w of %d bytes (--max-bytes, --max-ratio): the entry declares %d bytes, %d are written already",
			errTooLarge, x.opts.MaxBytes, e.size, x.stats.Bytes)
	}
	if prev != nil {
		if prev.Data.kind != kindRegular {
			return fmt.Errorf("duplicate entry: a file where a %s was", prev.Data.kind)
		}
		same, err := x.sameContent(full, e.body)
		if err != nil {
			return err
		}
		if !same || prev.Data.exec != e.exec {
			return errors.New("duplicate entry with different content or mode")
		}
		return nil
	}
	if err := x.countInode(); err != nil {
		return err
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, fileMode(e.exec))
	if err != nil {
		return err
	}
	n, err := x.copyLimited(f, e.body)
	x.stats.Bytes += n
	if err == nil {
		err = f.Chmod(fileMode(e.exec))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	// Recorded even on failure, so that nothing written goes unnoticed.
	nd := x.tree.Add(parent, name, symlink.File, "")
	nd.Data = meta{kind: kindRegular, exec: e.exec, size: n}
	if err != nil {
		return err
	}
	x.stats.Files++
	return nil
}

// errTooLarge is wrapped when the archive inflates past Options.MaxBytes.
var errTooLarge = fmt.Errorf("%w: archive inflates past the size limit", ErrLimit)

// copyLimited copies r to w, failing once the whole archive's content would
// exceed MaxBytes. The limit counts bytes actually decoded, not what headers
// claim, so a lying header cannot get around it.
func (x *extractor) copyLimited(w io.Writer, r io.Reader) (int64, error) {
	remaining := x.opts.MaxBytes - x.stats.Bytes
	n, err := io.CopyBuffer(w, io.LimitReader(r, remaining+1), x.buf)
	if err != nil {
		return n, err
	}
	if n > remaining {
		return n, fmt.Errorf("%w of %d bytes", errTooLarge, x.opts.MaxBytes)
	}
	return n, nil
}

// sameContent compares the file at full with the stream r, consuming r.
func (x *extractor) sameContent(full string, r io.Reader) (bool, error) {
	f, err := os.Open(full)
	if err != nil {
		return false, err
	}
	defer f.Close()
	half := len(x.buf) / 2
	a, b := x.buf[:half], x.buf[half:]
	same := true
	for {
		n, rerr := io.ReadFull(r, a)
		if n > 0 {
			x.stats.Bytes += int64(n)
			if x.stats.Bytes > x.opts.MaxBytes {
				return false, fmt.Errorf("%w of %d bytes", errTooLarge, x.opts.MaxBytes)
			}
			if same {
				m, _ := io.ReadFull(f, b[:n])
				same = m == n && bytes.Equal(a[:n], b[:n])
			}
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return false, rerr
		}
	}
	if same {
		// The existing file must not be longer than the new content.
		m, _ := f.Read(b[:1])
		same = m == 0
	}
	return same, nil
}

func (x *extractor) addSymlink(parent, prev *node, rel, name, target string) error {
	if err := checkLinkTarget(rel, target); err != nil {
		return err
	}
	if prev != nil {
		if prev.Data.kind == kindSymlink && prev.Target == target {
			return nil
		}
		return fmt.Errorf("duplicate entry: a symlink to %q where a %s was", target, prev.Data.kind)
	}
	if err := x.countInode(); err != nil {
		return err
	}
	if err := os.Symlink(target, filepath.Join(x.root, rel)); err != nil {
		return err
	}
	n := x.tree.Add(parent, name, symlink.Symlink, target)
	n.Data.kind = kindSymlink
	x.symlinks = append(x.symlinks, n)
	x.targetBytes += len(target)
	x.stats.Symlinks++
	return nil
}

// checkLinkTarget refuses a symlink target that leaves the tree when read
// as text from the link's directory. finish() checks again through other
// symlinks once the tree is complete.
func checkLinkTarget(rel, target string) error {
	if target == "" {
		return errors.New("symlink with an empty target")
	}
	if strings.HasPrefix(target, "/") {
		return fmt.Errorf("symlink to absolute path %q points outside the output", target)
	}
	joined := path.Join(path.Dir(rel), target)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return fmt.Errorf("symlink to %q points outside the output", target)
	}
	return nil
}

func (x *extractor) addHardlink(parent, prev *node, rel, name, linkname string) error {
	src, err := cleanName(linkname)
	if err != nil {
		return fmt.Errorf("hard link to %q: %w", linkname, err)
	}
	s := x.tree.Lookup(src)
	if src == "" || s == nil || s.Data.kind != kindRegular {
		return fmt.Errorf("hard link to %q: no regular file of that name earlier in the archive", linkname)
	}
	if prev != nil {
		return fmt.Errorf("duplicate entry: a hard link where a %s was", prev.Data.kind)
	}
	// A hard link costs no disk, but the NAR of the tree (what Nix hashes,
	// what detect reads) holds the file's bytes once per link: they count
	// as a copy would.
	if s.Data.size > x.opts.MaxBytes-x.stats.Bytes {
		return fmt.Errorf("%w of %d bytes (--max-bytes, --max-ratio): a hard link to %q counts its %d bytes again, %d are counted already",
			errTooLarge, x.opts.MaxBytes, linkname, s.Data.size, x.stats.Bytes)
	}
	if err := x.countInode(); err != nil {
		return err
	}
	if err := os.Link(filepath.Join(x.root, src), filepath.Join(x.root, rel)); err != nil {
		return err
	}
	n := x.tree.Add(parent, name, symlink.File, "")
	n.Data = s.Data
	x.stats.Files++
	x.stats.Bytes += s.Data.size
	return nil
}

// finish strips a lone top-level directory and then proves that every
// symlink resolves inside the final tree.
func (x *extractor) finish() error {
	if top := x.tree.Root; !x.opts.KeepTopLevel && top.NumChildren() == 1 {
		var name string
		var only *node
		for _, n := range x.dirs {
			if n.Parent == top {
				name, only = n.Name, n
			}
		}
		if only != nil {
			if err := x.hoist(name); err != nil {
				return fmt.Errorf("strip top-level directory %q: %w", name, err)
			}
			x.stats.StrippedTopLevel = name
			x.tree.MakeRoot(only) // ".." above it now leaves the output
		}
	}
	// Each link is resolved once and remembered, so this is linear in the
	// targets' length; the budget only stops what would not be.
	x.tree.Budget = 1<<20 + 4*(x.targetBytes+x.count)
	defer func() { x.stats.work.symlinkSteps = x.tree.Steps() }()
	for _, l := range x.symlinks {
		_, err := x.tree.Resolve(l.Parent, l.Target)
		switch {
		case err == nil, errors.Is(err, symlink.ErrDangling):
			// A dangling link inside the tree is fine: NVIDIA ships some.
		case errors.Is(err, symlink.ErrBudget):
			return fmt.Errorf("entry %q: symlink to %q: %w (%d steps for %d links)", x.archivePath(l), l.Target, err, x.tree.Budget, len(x.symlinks))
		case errors.Is(err, symlink.ErrLoop):
			return fmt.Errorf("entry %q: symlink to %q: %w", x.archivePath(l), l.Target, err)
		default:
			return fmt.Errorf("entry %q: symlink to %q %w", x.archivePath(l), l.Target, err)
		}
	}
	return nil
}

// archivePath names n as the archive did, top-level directory included.
func (x *extractor) archivePath(n *node) string {
	return joinRel(x.stats.StrippedTopLevel, n.Path())
}

// hoist moves the content of root/top up into root. top is first renamed
// to a fresh name so that a child called like its parent cannot collide.
func (x *extractor) hoist(top string) error {
	children, err := readDirNames(filepath.Join(x.root, top))
	if err != nil {
		return err
	}
	tmpName := ""
	for tmpName == "" || contains(children, tmpName) {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return err
		}
		tmpName = ".unpack-" + hex.EncodeToString(r[:])
	}
	tmp := filepath.Join(x.root, tmpName)
	if err := os.Rename(filepath.Join(x.root, top), tmp); err != nil {
		return err
	}
	for _, c := range children {
		if err := os.Rename(filepath.Join(tmp, c), filepath.Join(x.root, c)); err != nil {
			return err
		}
	}
	return os.Remove(tmp)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// readDirNames lists a directory's entries (the extractor's own output:
// small, so os.ReadDir's sorting and lstat cost nothing).
func readDirNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}
