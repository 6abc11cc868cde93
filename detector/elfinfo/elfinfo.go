package elfinfo

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/nix-cuda/cuda-redist-find-features/detector/dlopen"
	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Sections that hold fatbin containers. cuobjdump reads .nv_fatbin when a
// file has it, else __nv_relfatbin (relocatable objects, archive members).
const (
	sectionFatbin    = ".nv_fatbin"
	sectionRelFatbin = "__nv_relfatbin"
)

// Bounds on what one ELF file can make Read produce (docs/detection.md,
// "Bounds"). Real CUDA libraries stay far below each: at most 9 DT_NEEDED
// entries, sonames under 50 bytes, no compressed sections that Read needs.
const (
	// MaxInflateRatio bounds a compressed section (SHF_COMPRESSED, zlib
	// or zstd) that Read decompresses: .shstrtab, .dynamic, .dynstr or a
	// fatbin section may grow to at most this many bytes per byte of the
	// file (or archive member) holding it, and at least MinInflate. A zstd
	// frame may not ask for a larger window either.
	MaxInflateRatio = 16
	MinInflate      = 4 << 10
	// MaxNameLen bounds one DT_SONAME or DT_NEEDED string (PATH_MAX).
	MaxNameLen = 4096
	// MaxNeeded bounds the DT_NEEDED entries kept.
	MaxNeeded = 1024
	// maxErrors bounds the errors one file reports; the rest are counted.
	maxErrors = 8
)

// Info is what one ELF file holds.
type Info struct {
	Class   elf.Class
	Data    elf.Data
	Type    elf.Type
	Machine elf.Machine
	Soname  string
	Needed  []string
	// VersionDefs are the symbol version names the file defines
	// (.gnu.version_d, without the base entry), in file order.
	VersionDefs []string
	// Comments are the distinct strings of the .comment section: the
	// compilers that built the file.
	Comments []string
	// Images are the fatbin entries, in file order.
	Images []fatbin.Entry
	// RuntimeLoads are what a shared library may load at run time
	// besides its DT_NEEDED (detector/dlopen); RuntimeLoadsOmitted counts
	// the strings past its bounds.
	RuntimeLoads        []features.RuntimeLoad
	RuntimeLoadsOmitted int
}

// Archs returns the distinct GPU architectures of the file's device code.
func (i *Info) Archs() []string { return fatbin.Archs(i.Images) }

// IsELF reports whether data starts with the ELF magic.
func IsELF(data []byte) bool { return bytes.HasPrefix(data, []byte(elf.ELFMAG)) }

// inflateLimit is the most bytes a compressed section of a file of size
// bytes may decompress to.
func inflateLimit(size int) uint64 {
	return max(MinInflate, MaxInflateRatio*uint64(size))
}

// Read parses an ELF file held in data. It does not recover panics: a
// panic is a bug to fix, and FuzzRead must be able to see it.
func Read(data []byte) (*Info, error) { return ReadPrescanned(data, nil) }

// Prescan prepares the run-time load scan's search of a shared library
// held in data, to be fed the file's bytes as they are read in order
// (dlopen.Prescan); nil for any other file, or one Read would refuse.
func Prescan(data []byte) *dlopen.Prescan {
	if checkNameTable(data, inflateLimit(len(data))) != nil {
		return nil
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil || f.Type != elf.ET_DYN {
		return nil
	}
	return dlopen.NewPrescan(f, len(data))
}

// ReadPrescanned is Read with the run-time load scan's search done by
// pre, which was fed the whole of data (nil: Read).
func ReadPrescanned(data []byte, pre *dlopen.Prescan) (*Info, error) {
	limit := inflateLimit(len(data))
	// debug/elf decompresses the section name table inside NewFile, with
	// no bound: check it before.
	if err := checkNameTable(data, limit); err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("malformed ELF: %w", err)
	}
	r := &reader{data: data, f: f, limit: limit}
	info := &Info{Class: f.Class, Data: f.Data, Type: f.Type, Machine: f.Machine}
	verErr := r.readVersionDefs(info)
	r.readComment(info)
	if err := r.readDynamic(info); err != nil {
		return info, errors.Join(err, verErr)
	}
	if f.Type == elf.ET_DYN {
		loads, err := dlopen.ScanPrescanned(f, data, info.Soname, info.Needed, pre)
		info.RuntimeLoads, info.RuntimeLoadsOmitted = loads.Loads, loads.Omitted
		verErr = errors.Join(verErr, err)
	}
	sec := f.Section(sectionFatbin)
	if sec == nil {
		sec = f.Section(sectionRelFatbin)
	}
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return info, verErr
	}
	body, err := r.section(sec)
	if err != nil {
		return info, errors.Join(err, verErr)
	}
	images, err := fatbin.Parse(body)
	info.Images = images
	if err != nil {
		return info, errors.Join(fmt.Errorf("section %s: %w", sec.Name, err), verErr)
	}
	return info, verErr
}

// reader reads the sections of one ELF file, never decompressing one
// past limit bytes.
type reader struct {
	data  []byte
	f     *elf.File
	limit uint64
}

// section returns a section's content: a slice of data as stored, or,
// for an SHF_COMPRESSED section, its decompressed bytes once its claimed
// size and (zstd) window are known to be within the limit.
func (r *reader) section(sec *elf.Section) ([]byte, error) {
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("section %s holds no data (SHT_NOBITS)", sec.Name)
	}
	if sec.Offset > uint64(len(r.data)) || sec.FileSize > uint64(len(r.data))-sec.Offset {
		return nil, fmt.Errorf("section %s runs past the end of the file", sec.Name)
	}
	if sec.Flags&elf.SHF_COMPRESSED == 0 {
		return r.data[sec.Offset : sec.Offset+sec.FileSize], nil
	}
	raw := r.data[sec.Offset : sec.Offset+sec.FileSize]
	if err := checkCompressed(r.f.Class, r.f.ByteOrder, raw, r.limit, len(r.data)); err != nil {
		return nil, fmt.Errorf("section %s: %w", sec.Name, err)
	}
	out := make([]byte, sec.Size)
	if _, err := io.ReadFull(sec.Open(), out); err != nil {
		return nil, fmt.Errorf("section %s: decompress: %w", sec.Name, err)
	}
	return out, nil
}

// readDynamic reads DT_SONAME and DT_NEEDED as the dynamic loader and
// patchelf do: entries up to the first DT_NULL. debug/elf's DynString
// silently drops a string whose offset is out of bounds or that is not
// terminated; here each is an error (the strings that are fine are kept).
// What is kept is bounded (MaxNameLen, MaxNeeded, and in all no more
// bytes than the string table holds), so a table of one long string
// named by thousands of entries costs its size, not their product.
func (r *reader) readDynamic(info *Info) error {
	ds := r.f.SectionByType(elf.SHT_DYNAMIC)
	if ds == nil {
		return nil // static object or executable, or no section headers: nothing to read
	}
	str, dyn, err := r.sectionWithStrings(ds, "dynamic section")
	if err != nil {
		return err
	}
	entry := 16
	if r.f.Class == elf.ELFCLASS32 {
		entry = 8
	}
	d := dynNames{str: str, budget: len(str)}
	for p := 0; p+entry <= len(dyn); p += entry {
		tag, val := r.dynEntry(dyn[p : p+entry])
		if tag == elf.DT_NULL {
			break
		}
		d.take(info, tag, val)
	}
	if d.extra > 0 {
		d.errs.add(fmt.Errorf("dynamic section: %d DT_NEEDED entries, only the first %d kept", MaxNeeded+d.extra, MaxNeeded))
	}
	return d.errs.err()
}

// sectionWithStrings reads sec and the string table it links to; what
// names sec in the errors.
func (r *reader) sectionWithStrings(sec *elf.Section, what string) (str, body []byte, err error) {
	if int(sec.Link) <= 0 || int(sec.Link) >= len(r.f.Sections) {
		return nil, nil, fmt.Errorf("%s: string table is section %d of %d", what, sec.Link, len(r.f.Sections))
	}
	str, err = r.section(r.f.Sections[sec.Link])
	if err != nil {
		return nil, nil, fmt.Errorf("%s: string table: %w", what, err)
	}
	body, err = r.section(sec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return str, body, nil
}

// dynEntry decodes one dynamic entry, 16 bytes (ELF64) or 8 (ELF32).
func (r *reader) dynEntry(e []byte) (elf.DynTag, uint64) {
	if len(e) == 16 {
		return elf.DynTag(r.f.ByteOrder.Uint64(e)), r.f.ByteOrder.Uint64(e[8:])
	}
	return elf.DynTag(r.f.ByteOrder.Uint32(e)), uint64(r.f.ByteOrder.Uint32(e[4:]))
}

// dynNames keeps the names of DT_SONAME and DT_NEEDED entries, within
// the bounds readDynamic describes.
type dynNames struct {
	str    []byte // the string table
	budget int    // the bytes of strings still to keep, in all
	needed int    // DT_NEEDED names kept
	extra  int    // DT_NEEDED entries past MaxNeeded
	errs   errorList
}

// take keeps the name of the entry when it is one that counts.
func (d *dynNames) take(info *Info, tag elf.DynTag, val uint64) {
	if !d.counts(info, tag) {
		return
	}
	b, bad := dynString(d.str, val)
	if bad == strOK && len(b) > d.budget {
		bad = strOverlap
	}
	if bad != strOK {
		// Formatted only when reported: a file of thousands of bad
		// entries must not cost an error value each.
		if d.errs.full() {
			d.errs.dropped++
		} else {
			d.errs.add(fmt.Errorf("dynamic section: %s: %w", tag, bad.err(val, len(d.str))))
		}
		return
	}
	d.budget -= len(b)
	s := string(b) // a copy: the names outlive a mapped file
	if tag == elf.DT_SONAME {
		info.Soname = s
	} else {
		info.Needed = append(info.Needed, s)
		d.needed++
	}
}

// counts says whether the entry's name is one to keep: the first
// DT_SONAME, and the first MaxNeeded DT_NEEDED (the rest are counted).
func (d *dynNames) counts(info *Info, tag elf.DynTag) bool {
	switch tag {
	case elf.DT_SONAME:
		return info.Soname == ""
	case elf.DT_NEEDED:
		if d.needed == MaxNeeded {
			d.extra++
			return false
		}
		return true
	}
	return false
}

// strProblem is what is wrong with a string a dynamic entry names.
type strProblem int

const (
	strOK strProblem = iota
	strOutside
	strTooLong
	strUnterminated
	strOverlap
)

func (p strProblem) err(off uint64, tableLen int) error {
	switch p {
	case strOutside:
		return fmt.Errorf("string offset %d outside the string table (%d bytes)", off, tableLen)
	case strTooLong:
		return fmt.Errorf("string at offset %d is longer than %d bytes", off, MaxNameLen)
	case strUnterminated:
		return fmt.Errorf("string at offset %d is not terminated", off)
	}
	return fmt.Errorf("string at offset %d: the strings named so far pass the %d bytes of the string table (entries point into each other)", off, tableLen)
}

// dynString is the NUL-terminated string at off in a string table, at
// most MaxNameLen bytes long (the search for its end stops there).
func dynString(str []byte, off uint64) ([]byte, strProblem) {
	if off >= uint64(len(str)) {
		return nil, strOutside
	}
	rest := str[off:]
	end := bytes.IndexByte(rest[:min(len(rest), MaxNameLen+1)], 0)
	switch {
	case end >= 0:
		return rest[:end], strOK
	case len(rest) > MaxNameLen:
		return nil, strTooLong
	}
	return nil, strUnterminated
}

// errorList keeps the first maxErrors errors and counts the rest, so a
// file of thousands of bad entries reports a few lines.
type errorList struct {
	errs    []error
	dropped int
}

func (l *errorList) full() bool { return len(l.errs) == maxErrors }

func (l *errorList) add(err error) {
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, err)
		return
	}
	l.dropped++
}

func (l *errorList) err() error {
	if l.dropped > 0 {
		l.errs = append(l.errs, fmt.Errorf("and %d more errors", l.dropped))
	}
	return errors.Join(l.errs...)
}
