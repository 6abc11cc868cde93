package facts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"unsafe"

	"github.com/nix-cuda/cuda-redist-find-features/detector/dlopen"
	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// The walk is two stages on two goroutines. The reader walks the tree in
// NAR order (depth first, names sorted by their bytes) and reads small
// files whole into a ring of buffers; the consumer hashes every node and
// hands every file to the ELF reader. It reads large files itself, a piece
// at a time, and maps those the ELF reader parses (ELF files and static
// archives), which then touches only their headers and fatbins. The
// system calls of the walk overlap with the hashing: on trees of
// thousands of headers, they cost as much.

// smallFile is the size up to which the reader reads a file ahead into a
// buffer; the consumer reads larger ones.
const smallFile = 256 << 10

// readAheadBuffers bounds the small files read ahead (memory: this many
// times smallFile).
const readAheadBuffers = 32

// walkItem is one node as the reader found it.
type walkItem struct {
	rel       string // escaped (features.EscapeName): what the output shows
	raw       string // the raw bytes of the path: what the NAR hash covers
	abs       string
	kind      nodeKind
	exec      bool
	size      int64
	target    string   // symlink, escaped
	rawTarget string   // symlink, as on disk
	children  []string // directory, sorted
	data      []byte   // content of a small file
	buf       *[]byte  // the ring buffer holding data, to give back
	id        fileID   // device and inode of a file with more than one link
	err       error
}

// fileID names a file with hard links: its device and inode.
type fileID struct{ dev, ino uint64 }

// scan walks root once, feeding every node to the NAR hasher and every
// file to the /usr/ search and the ELF reader. With a known NAR hash
// (opts.NarHash not empty), nothing is hashed and Sum is that hash. The
// walk stops at the first node past opts.MaxEntries and the first file
// past opts.MaxBytes, before reading it.
func scan(root string, opts Options) (*tree, string, error) {
	if err := sizeUp(root, opts); err != nil {
		return nil, "", err
	}
	narHash := opts.NarHash
	t := newTree()
	var h *narhash.NarHasher
	var err error
	if narHash != "" {
		h, err = narhash.NewKnown(narHash)
	} else {
		h, err = narhash.NewNarHasher()
	}
	if err != nil {
		return nil, "", err
	}
	items := make(chan walkItem, readAheadBuffers)
	// The reader makes the buffers as it needs them: a tree of a few
	// files needs a few, and 8 MiB made up front cost a walk of a small
	// tree more than the walk (the allocation set off a collection).
	free := make(chan *[]byte, readAheadBuffers)
	stop := make(chan struct{})
	r := &reader{items: items, free: free, stop: stop, maxBytes: opts.MaxBytes, maxEntries: opts.MaxEntries,
		entries: -1} // the root is not an entry, as unpack counts them
	go func() {
		defer close(items)
		r.walk(root, "", "")
	}()
	c := &consumer{t: t, h: h, buf: make([]byte, readPiece)}
	err = c.consume(items, free)
	close(stop)
	for range items { // let the reader finish
	}
	if err != nil {
		return nil, "", err
	}
	t.setBudget()
	sum, err := h.Sum()
	if err != nil {
		return nil, "", err
	}
	return t, sum, nil
}

// sizeUp measures the tree from its directories and lstat alone and
// refuses it when it is past a bound, before a byte of it is read: a tree
// of 2,000 hard links to one 100 MiB file costs 2,000 lstat calls here,
// not 64 GiB of hashing up to the bound. The walk counts again as it
// reads, so a tree that grows in between is still refused.
func sizeUp(root string, opts Options) error {
	r := &reader{maxBytes: opts.MaxBytes, maxEntries: opts.MaxEntries, entries: -1}
	var visit func(abs string) error
	visit = func(abs string) error {
		fi, err := os.Lstat(abs)
		if err != nil {
			return err
		}
		size := int64(0)
		if fi.Mode().IsRegular() {
			size = fi.Size()
		}
		if err := r.count(abs, size); err != nil {
			return err
		}
		if !fi.IsDir() {
			return nil
		}
		names, err := readDirNames(abs)
		if err != nil {
			return err
		}
		sort.Strings(names) // so a refusal names the file the walk would reach
		for _, name := range names {
			if err := visit(abs + "/" + name); err != nil {
				return err
			}
		}
		return nil
	}
	return visit(root)
}

func narPath(rel string) string { return "/" + rel }

// readPiece is the piece of a large file read, hashed and then searched
// for /usr/ while in the CPU's cache (well within the L2 of any recent
// CPU).
const readPiece = 128 << 10

// consumer builds the tree's nodes and the NAR hash from the reader's
// items.
type consumer struct {
	t   *tree
	h   *narhash.NarHasher
	buf []byte // readPiece bytes, for large files
}

func (c *consumer) consume(items <-chan walkItem, free chan<- *[]byte) error {
	for it := range items {
		if it.err != nil {
			return it.err
		}
		switch it.kind {
		case kindSymlink:
			if err := c.t.add(it.rel, &node{kind: kindSymlink, target: it.target}); err != nil {
				return err
			}
			if err := c.h.Symlink(narPath(it.raw), it.rawTarget); err != nil {
				return err
			}
		case kindDir:
			if err := c.t.add(it.rel, &node{kind: kindDir, children: it.children}); err != nil {
				return err
			}
			if err := c.h.Dir(narPath(it.raw)); err != nil {
				return err
			}
		case kindFile:
			n := &node{kind: kindFile, exec: it.exec}
			if err := c.t.add(it.rel, n); err != nil {
				return err
			}
			// A hard link to a file read before shares what the ELF
			// reader found there (it is hashed again: the NAR holds
			// every link's bytes).
			first := c.t.addContent(it)
			err := c.file(it, n, first == nil)
			if first != nil {
				n.file = first.file
			}
			if it.buf != nil {
				free <- it.buf
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// file hashes and inspects one file. The reader has read a small one
// already; a large one is read here a piece at a time, and mapped (from the
// same open file) only if it is an ELF file or a static archive, whose
// headers the ELF reader jumps between.
func (c *consumer) file(it walkItem, n *node, inspectIt bool) error {
	if it.data != nil || it.size == 0 {
		return c.inMemory(it, n, it.data, inspectIt)
	}
	f, err := openFile(it.abs)
	if err != nil {
		return fmt.Errorf("read %s: %w", it.abs, err)
	}
	defer f.Close()
	if strings.HasSuffix(it.rel, ".pc") { // findUsr reads it line by line
		return withMapped(f, it, func(data []byte) error { return c.inMemory(it, n, data, inspectIt) })
	}
	if inspectIt && startsELF(f) {
		// A shared library's run-time load scan searches its data
		// sections for ".so" in the pieces read here, in the CPU's
		// cache (dlopen.Prescan), and reads the mapping only around
		// what it found.
		return withMapped(f, it, func(data []byte) error {
			pre := elfinfo.Prescan(data)
			if _, err := c.stream(f, it, n, pre); err != nil {
				return err
			}
			n.file = inspectPrescanned(it.rel, data, pre)
			return nil
		})
	}
	head, err := c.stream(f, it, n, nil)
	if err != nil || !inspectIt {
		return err
	}
	if !elfinfo.IsELF(head) && !elfinfo.IsArchive(head) {
		n.file = inspect(it.rel, head) // its name and first bytes are all inspect reads
		return nil
	}
	return withMapped(f, it, func(data []byte) error {
		n.file = inspect(it.rel, data)
		return nil
	})
}

// startsELF reports whether the open file f starts with the ELF magic.
func startsELF(f *os.File) bool {
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	return elfinfo.IsELF(magic[:n])
}

// inMemory hashes, searches and (inspectIt) inspects a file whose content
// is in data.
func (c *consumer) inMemory(it walkItem, n *node, data []byte, inspectIt bool) (err error) {
	if strings.HasSuffix(it.rel, ".pc") {
		if err := c.h.FileBytes(narPath(it.raw), n.exec, data); err != nil {
			return err
		}
		var scanned int
		n.usr, scanned = findUsr(it.rel, data)
		c.t.usrScanned += scanned
	} else if n.usr, err = hashAndFindUsr(c.h, narPath(it.raw), n.exec, data); err != nil {
		return err
	}
	if inspectIt {
		n.file = inspect(it.rel, data)
	}
	return nil
}

// stream reads, hashes and searches a large file for /usr/ (and, with
// pre, for the run-time load scan's ".so"), and returns its first bytes
// (as many as inspect reads of a file that is neither an ELF file nor a
// static archive).
func (c *consumer) stream(f *os.File, it walkItem, n *node, pre *dlopen.Prescan) ([]byte, error) {
	var head []byte
	found, tail := false, make([]byte, 0, 2*len(usrBytes))
	err := c.h.FileFrom(narPath(it.raw), n.exec, it.size, f, c.buf, func(piece []byte) {
		if head == nil {
			head = append([]byte(nil), piece[:min(len(piece), linkerScriptHead)]...)
		}
		if pre != nil {
			pre.Feed(piece)
		}
		if found {
			return
		}
		// A match may straddle two pieces: search the seam too. Every
		// piece but the last is len(c.buf) bytes, far more than the
		// needle, so a match never spans three.
		tail = append(tail, piece[:min(len(piece), len(usrBytes)-1)]...)
		found = indexUsr(tail) >= 0 || indexUsr(piece) >= 0
		tail = append(tail[:0], piece[max(0, len(piece)-len(usrBytes)+1):]...)
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", it.abs, err)
	}
	if found {
		n.usr = usrAnywhere
	}
	return head, nil
}

// withMapped maps the open file f of it read-only for use: the ELF reader
// jumps to the section headers and fatbins of a 500 MB library without
// reading the rest. A file that shrinks while mapped is an error naming
// it, never a crash.
func withMapped(f *os.File, it walkItem, use func(data []byte) error) (err error) {
	mapped, err := mapFile(f, it.size)
	if err != nil {
		return err
	}
	defer syscall.Munmap(mapped)
	// A mapped file that shrinks under us faults on access (SIGBUS);
	// with this, the fault is a panic, on this goroutine only, that the
	// function below turns into an error for this file.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			fault, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("read %s: the file changed during the walk (fault at offset %d of %d mapped bytes)",
				it.abs, int64(fault.Addr()-uintptr(unsafe.Pointer(unsafe.SliceData(mapped)))), len(mapped))
		}
	}()
	return use(mapped)
}

// hashAndFindUsr hashes a file and searches it for /usr/ in one pass over
// memory (findUsr's answer for a file that is not a .pc file).
func hashAndFindUsr(h *narhash.NarHasher, p string, exec bool, data []byte) (usrReference, error) {
	found := false
	err := h.FileBytesVisit(p, exec, data, readPiece, func(start, end int) {
		if !found {
			// Back up by len-1 bytes: a match may straddle two pieces.
			found = indexUsr(data[max(0, start-len(usrBytes)+1):end]) >= 0
		}
	})
	if found {
		return usrAnywhere, err
	}
	return usrNone, err
}

// reader walks the tree for consume.
type reader struct {
	items chan<- walkItem
	free  <-chan *[]byte
	made  int // read-ahead buffers made so far
	stop  <-chan struct{}
	// What the walk has visited, and its bounds.
	bytes, maxBytes int64
	entries         int
	maxEntries      int
}

// ErrLimit is wrapped by the walk's refusals for exceeding a bound of Options.
var ErrLimit = errors.New("limit exceeded")

// count charges one node, and a file's size, to the bounds before the
// node is read.
func (r *reader) count(abs string, size int64) error {
	r.entries++
	if r.entries > r.maxEntries {
		return fmt.Errorf("%s: %w: the tree has more than %d files, directories and symlinks (--max-entries)", abs, ErrLimit, r.maxEntries)
	}
	if size > r.maxBytes-r.bytes {
		return fmt.Errorf("%s: %w: its %d bytes would take the tree past %d bytes of file content, %d counted before it (hard-linked files count once per name, as the NAR holds them; --max-bytes)",
			abs, ErrLimit, size, r.maxBytes, r.bytes)
	}
	r.bytes += size
	return nil
}

// buffer returns a free read-ahead buffer, a new one while fewer than
// readAheadBuffers exist, or nil when the consumer has stopped.
func (r *reader) buffer() *[]byte {
	select {
	case buf := <-r.free:
		return buf
	default:
	}
	if r.made < readAheadBuffers {
		r.made++
		b := make([]byte, smallFile)
		return &b
	}
	select {
	case buf := <-r.free:
		return buf
	case <-r.stop:
		return nil
	}
}

// send hands an item over; false when the consumer has stopped.
func (r *reader) send(it walkItem) bool {
	select {
	case r.items <- it:
		return true
	case <-r.stop:
		return false
	}
}

func (r *reader) fail(err error) bool {
	r.send(walkItem{err: err})
	return false
}

// walk sends abs (rel escaped, raw as it is on disk) and what is below.
func (r *reader) walk(abs, rel, raw string) bool {
	fi, err := os.Lstat(abs)
	if err != nil {
		return r.fail(err)
	}
	size := int64(0)
	if fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if err := r.count(abs, size); err != nil {
		return r.fail(err)
	}
	switch mode := fi.Mode(); {
	case mode&fs.ModeSymlink != 0:
		return r.walkSymlink(abs, rel, raw)
	case mode.IsDir():
		return r.walkDir(abs, rel, raw)
	case mode.IsRegular():
		return r.walkFile(abs, rel, raw, fi)
	default:
		return r.fail(fmt.Errorf("%s: unsupported file type %v (a store path holds only files, directories and symlinks)", abs, mode.Type()))
	}
}

// walkSymlink sends the symlink abs with its target.
func (r *reader) walkSymlink(abs, rel, raw string) bool {
	target, err := os.Readlink(abs)
	if err != nil {
		return r.fail(err)
	}
	return r.send(walkItem{rel: rel, raw: raw, kind: kindSymlink, target: features.EscapeName(target), rawTarget: target})
}

// walkDir sends the directory abs with its children's names, then walks
// each child.
func (r *reader) walkDir(abs, rel, raw string) bool {
	names, err := readDirNames(abs)
	if err != nil {
		return r.fail(err)
	}
	// NAR orders entries by their bytes, as Go's string comparison does.
	sort.Strings(names)
	escaped := make([]string, len(names))
	for i, name := range names {
		escaped[i] = features.EscapeName(name)
	}
	if !r.send(walkItem{rel: rel, raw: raw, kind: kindDir, children: escaped}) {
		return false
	}
	for i, name := range names {
		if !r.walk(abs+"/"+name, joinRel(rel, escaped[i]), joinRel(raw, name)) {
			return false
		}
	}
	return true
}

// walkFile sends the regular file abs, with its data when it is small.
func (r *reader) walkFile(abs, rel, raw string, fi fs.FileInfo) bool {
	it := walkItem{rel: rel, raw: raw, abs: abs, kind: kindFile, exec: fi.Mode()&0o111 != 0, size: fi.Size()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		it.id = fileID{dev: uint64(st.Dev), ino: st.Ino}
	}
	if it.size > 0 && it.size <= smallFile {
		buf := r.buffer()
		if buf == nil {
			return false
		}
		data, err := readSmall(abs, it.size, *buf)
		if err != nil {
			return r.fail(fmt.Errorf("read %s: %w", abs, err))
		}
		it.data, it.buf = data, buf
	}
	return r.send(it)
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

// mapFile maps size bytes of f read-only. Pages are read in as the ELF
// reader touches them, not all ahead (MAP_POPULATE): the hash and the
// searches read the file in pieces. The caller unmaps it.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: file too large to map (%d bytes)", f.Name(), size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return data, nil
}

// openFile opens a file of the tree, never a symlink put in its place
// during the walk.
func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// readSmall reads a small file into buf with plain open/read/close: os.Open
// also registers every file with the runtime's poller, which for thousands
// of headers costs more than reading them.
func readSmall(path string, size int64, buf []byte) ([]byte, error) {
	data := buf[:size]
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	for off := 0; off < len(data); {
		n, err := syscall.Read(fd, data[off:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, io.ErrUnexpectedEOF // the file shrank during the walk
		}
		off += n
	}
	return data, nil
}
