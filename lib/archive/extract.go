package archive

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
	"sort"
	"strings"
	"syscall"

	"github.com/nix-cuda/cuda-redist-find-features/lib/symlink"
)

type entryKind int

const (
	kindRegular entryKind = iota + 1
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
	body     io.Reader // content of a regular file
}

// seen records what was written at a path, to judge duplicate entries.
type seen struct {
	kind   entryKind
	exec   bool
	target string
}

// extractor writes entries below root, refusing anything that could reach
// outside it. It never follows a symlink while writing: every parent of a
// written path is checked to be a real directory created by this run.
type extractor struct {
	root     string
	opts     Options
	stats    Stats
	entries  int
	seen     map[string]seen // cleaned relative path -> what is there
	symlinks []string        // relative paths of symlinks, checked at the end
	buf      []byte
}

func newExtractor(dst string, opts Options) (*extractor, error) {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return nil, err
	}
	if err := prepareRoot(abs); err != nil {
		return nil, err
	}
	return &extractor{
		root: abs,
		opts: opts,
		seen: map[string]seen{},
		buf:  make([]byte, 1<<20),
	}, nil
}

// prepareRoot creates dst, or accepts it when it is an empty directory.
func prepareRoot(dst string) error {
	err := os.Mkdir(dst, 0o755)
	if err == nil {
		return os.Chmod(dst, 0o755)
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create output: %w", err)
	}
	fi, err := os.Lstat(dst)
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("output %s exists and is not a directory", dst)
	}
	names, err := readDirNames(dst)
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	if len(names) > 0 {
		return fmt.Errorf("output %s is not empty", dst)
	}
	return nil
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

func (x *extractor) add(e entry) error {
	x.entries++
	if x.entries > x.opts.MaxEntries {
		return fmt.Errorf("entry %q: archive has more than %d entries", e.name, x.opts.MaxEntries)
	}
	rel, err := cleanName(e.name)
	if err != nil {
		return fmt.Errorf("entry %q: %w", e.name, err)
	}
	if rel == "" {
		if e.kind == kindDir {
			return nil // the archive's own root ("./")
		}
		return fmt.Errorf("entry %q: a %s cannot be the archive root", e.name, e.kind)
	}
	if err := x.mkParents(rel); err != nil {
		return fmt.Errorf("entry %q: %w", e.name, err)
	}
	switch e.kind {
	case kindDir:
		err = x.addDir(rel)
	case kindRegular:
		err = x.addFile(rel, e)
	case kindSymlink:
		err = x.addSymlink(rel, e.linkname)
	case kindHardlink:
		err = x.addHardlink(rel, e.linkname)
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", e.name, err)
	}
	return nil
}

// mkParents makes every parent directory of rel, refusing a parent that is
// anything but a directory this extraction made.
func (x *extractor) mkParents(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	p := ""
	for _, c := range strings.Split(dir, "/") {
		p = path.Join(p, c)
		if s, ok := x.seen[p]; ok {
			if s.kind != kindDir {
				return fmt.Errorf("parent %q is a %s, not a directory", p, s.kind)
			}
			continue
		}
		if err := x.mkdir(p); err != nil {
			return err
		}
	}
	return nil
}

func (x *extractor) mkdir(rel string) error {
	full := filepath.Join(x.root, rel)
	if err := os.Mkdir(full, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(full, 0o755); err != nil {
		return err
	}
	x.seen[rel] = seen{kind: kindDir}
	x.stats.Dirs++
	return nil
}

func (x *extractor) addDir(rel string) error {
	if s, ok := x.seen[rel]; ok {
		if s.kind == kindDir {
			return nil
		}
		return fmt.Errorf("duplicate entry: a directory where a %s was", s.kind)
	}
	return x.mkdir(rel)
}

func fileMode(exec bool) os.FileMode {
	if exec {
		return 0o755
	}
	return 0o644
}

func (x *extractor) addFile(rel string, e entry) error {
	full := filepath.Join(x.root, rel)
	if s, ok := x.seen[rel]; ok {
		if s.kind != kindRegular {
			return fmt.Errorf("duplicate entry: a file where a %s was", s.kind)
		}
		same, err := x.sameContent(full, e.body)
		if err != nil {
			return err
		}
		if !same || s.exec != e.exec {
			return errors.New("duplicate entry with different content or mode")
		}
		return nil
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
	if err != nil {
		return err
	}
	x.seen[rel] = seen{kind: kindRegular, exec: e.exec}
	x.stats.Files++
	return nil
}

// errTooLarge is wrapped when the archive inflates past Options.MaxBytes.
var errTooLarge = errors.New("archive inflates past the size limit")

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

func (x *extractor) addSymlink(rel, target string) error {
	if err := checkLinkTarget(rel, target); err != nil {
		return err
	}
	if s, ok := x.seen[rel]; ok {
		if s.kind == kindSymlink && s.target == target {
			return nil
		}
		return fmt.Errorf("duplicate entry: a symlink to %q where a %s was", target, s.kind)
	}
	if err := os.Symlink(target, filepath.Join(x.root, rel)); err != nil {
		return err
	}
	x.seen[rel] = seen{kind: kindSymlink, target: target}
	x.symlinks = append(x.symlinks, rel)
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

func (x *extractor) addHardlink(rel, linkname string) error {
	src, err := cleanName(linkname)
	if err != nil {
		return fmt.Errorf("hard link to %q: %w", linkname, err)
	}
	s, ok := x.seen[src]
	if !ok || s.kind != kindRegular {
		return fmt.Errorf("hard link to %q: no regular file of that name earlier in the archive", linkname)
	}
	if prev, ok := x.seen[rel]; ok {
		return fmt.Errorf("duplicate entry: a hard link where a %s was", prev.kind)
	}
	if err := os.Link(filepath.Join(x.root, src), filepath.Join(x.root, rel)); err != nil {
		return err
	}
	x.seen[rel] = s
	x.stats.Files++
	return nil
}

// finish strips a lone top-level directory and then proves that every
// symlink resolves inside the final tree.
func (x *extractor) finish() error {
	top := x.topLevel()
	if !x.opts.KeepTopLevel && len(top) == 1 && x.seen[top[0]].kind == kindDir {
		if err := x.hoist(top[0]); err != nil {
			return fmt.Errorf("strip top-level directory %q: %w", top[0], err)
		}
		x.stats.StrippedTopLevel = top[0]
	}
	for _, rel := range x.symlinks {
		final := rel
		if x.stats.StrippedTopLevel != "" {
			final = strings.TrimPrefix(rel, x.stats.StrippedTopLevel+"/")
		}
		if err := resolveInside(x.root, final); err != nil {
			return fmt.Errorf("entry %q: %w", rel, err)
		}
	}
	return nil
}

func (x *extractor) topLevel() []string {
	set := map[string]bool{}
	for rel := range x.seen {
		first, _, _ := strings.Cut(rel, "/")
		set[first] = true
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
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

// resolveInside follows the symlink at rel, component by component and
// through further symlinks, as the kernel would, and fails if the walk ever
// leaves root. A dangling link inside the tree is fine: NVIDIA ships some.
func resolveInside(root, rel string) error {
	target, err := os.Readlink(filepath.Join(root, rel))
	if err != nil {
		return err
	}
	dir := strings.Split(path.Dir(rel), "/")
	if dir[0] == "." {
		dir = nil
	}
	_, err = symlink.Resolve(dir, target, func(c []string) symlink.Node {
		p := filepath.Join(root, filepath.Join(c...))
		fi, err := os.Lstat(p)
		if err != nil {
			return symlink.Node{}
		}
		n := symlink.Node{Exists: true, IsDir: fi.IsDir(), IsSymlink: fi.Mode()&os.ModeSymlink != 0}
		if n.IsSymlink {
			n.Target, _ = os.Readlink(p)
		}
		return n
	})
	switch {
	case err == nil, errors.Is(err, symlink.ErrDangling):
		return nil
	case errors.Is(err, symlink.ErrLoop):
		return fmt.Errorf("symlink to %q: %w", target, err)
	default:
		return fmt.Errorf("symlink to %q %w", target, err)
	}
}
