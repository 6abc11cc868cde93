package elfinfo

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
)

// Sections that hold fatbin containers. cuobjdump reads .nv_fatbin when a
// file has it, else __nv_relfatbin (relocatable objects, archive members).
const (
	sectionFatbin    = ".nv_fatbin"
	sectionRelFatbin = "__nv_relfatbin"
)

// Info is what one ELF file holds.
type Info struct {
	Class   elf.Class
	Data    elf.Data
	Type    elf.Type
	Machine elf.Machine
	Soname  string
	Needed  []string
	// Images are the fatbin entries, in file order.
	Images []fatbin.Entry
}

// Archs returns the distinct GPU architectures of the file's device code.
func (i *Info) Archs() []string { return fatbin.Archs(i.Images) }

// IsELF reports whether data starts with the ELF magic.
func IsELF(data []byte) bool { return bytes.HasPrefix(data, []byte(elf.ELFMAG)) }

// Read parses an ELF file held in data. It does not recover panics: a
// panic is a bug to fix, and FuzzRead must be able to see it.
func Read(data []byte) (*Info, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("malformed ELF: %w", err)
	}
	info := &Info{Class: f.Class, Data: f.Data, Type: f.Type, Machine: f.Machine}
	if err := readDynamic(f, info); err != nil {
		return info, err
	}
	sec := f.Section(sectionFatbin)
	if sec == nil {
		sec = f.Section(sectionRelFatbin)
	}
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return info, nil
	}
	if sec.Offset > uint64(len(data)) || sec.Size > uint64(len(data))-sec.Offset {
		return info, fmt.Errorf("section %s runs past the end of the file", sec.Name)
	}
	images, err := fatbin.Parse(data[sec.Offset : sec.Offset+sec.Size])
	info.Images = images
	if err != nil {
		return info, fmt.Errorf("section %s: %w", sec.Name, err)
	}
	return info, nil
}

// readDynamic reads DT_SONAME and DT_NEEDED. debug/elf's DynString
// silently drops a string whose offset is out of bounds or that is not
// terminated; here each is an error (the strings that are fine are kept).
func readDynamic(f *elf.File, info *Info) error {
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	if ds == nil {
		return nil // static object or executable, or no section headers: nothing to read
	}
	if int(ds.Link) <= 0 || int(ds.Link) >= len(f.Sections) {
		return fmt.Errorf("dynamic section: string table is section %d of %d", ds.Link, len(f.Sections))
	}
	strtab := f.Sections[ds.Link]
	str, err := strtab.Data()
	if err != nil {
		return fmt.Errorf("dynamic section: string table %s: %w", strtab.Name, err)
	}
	var errs []error
	strings := func(tag elf.DynTag) []string {
		offsets, err := f.DynValue(tag)
		if err != nil {
			errs = append(errs, fmt.Errorf("dynamic section: %w", err))
			return nil
		}
		var out []string
		for _, off := range offsets {
			s, err := dynString(str, off)
			if err != nil {
				errs = append(errs, fmt.Errorf("dynamic section: %s: %w", tag, err))
				continue
			}
			out = append(out, s)
		}
		return out
	}
	if sonames := strings(elf.DT_SONAME); len(sonames) > 0 {
		info.Soname = sonames[0]
	}
	info.Needed = strings(elf.DT_NEEDED)
	return errors.Join(errs...)
}

// dynString is the NUL-terminated string at off in a string table.
func dynString(str []byte, off uint64) (string, error) {
	if off >= uint64(len(str)) {
		return "", fmt.Errorf("string offset %d outside the string table (%d bytes)", off, len(str))
	}
	end := bytes.IndexByte(str[off:], 0)
	if end < 0 {
		return "", fmt.Errorf("string at offset %d is not terminated", off)
	}
	return string(str[off : off+uint64(end)]), nil
}
