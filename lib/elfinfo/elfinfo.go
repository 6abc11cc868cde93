// Package elfinfo reads what the detector needs from ELF files and static
// archives: the dynamic section (what `patchelf --print-soname` and
// `patchelf --print-needed` print) and the GPU architectures of embedded
// fatbins (what `cuobjdump FILE` lists as `arch = sm_XX`).
//
// It works on byte slices (the detector maps each file once) and never
// executes or relocates anything, so it reads archives of any platform.
package elfinfo

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/fatbin"
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

// Read parses an ELF file held in data.
func Read(data []byte) (info *Info, err error) {
	// debug/elf is hardened and fuzzed upstream, but a panic on a hostile
	// library must still become an error naming the file, never a crash.
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("malformed ELF: %v", r)
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("malformed ELF: %w", err)
	}
	info = &Info{Class: f.Class, Data: f.Data, Type: f.Type, Machine: f.Machine}
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

func readDynamic(f *elf.File, info *Info) error {
	if f.Section(".dynamic") == nil && progDynamic(f) == nil {
		return nil // static object or executable: no dynamic section
	}
	sonames, err := f.DynString(elf.DT_SONAME)
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return nil
		}
		return fmt.Errorf("dynamic section: %w", err)
	}
	if len(sonames) > 0 {
		info.Soname = sonames[0]
	}
	needed, err := f.DynString(elf.DT_NEEDED)
	if err != nil {
		return fmt.Errorf("dynamic section: %w", err)
	}
	info.Needed = needed
	return nil
}

func progDynamic(f *elf.File) *elf.Prog {
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC {
			return p
		}
	}
	return nil
}
