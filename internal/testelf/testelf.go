// Package testelf writes small ELF files for tests: shared objects and
// relocatable objects of either class and byte order, with a dynamic
// section (DT_SONAME, DT_NEEDED) and any extra sections (.nv_fatbin). It
// lets tests cover layouts no compiler on the test machine produces
// (32-bit, big-endian) without committing opaque binaries.
package testelf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strconv"
)

// Section is an extra section with raw content.
type Section struct {
	Name string
	Data []byte
}

// Spec describes the file to write.
type Spec struct {
	Class    elf.Class // ELFCLASS32 or ELFCLASS64 (default 64)
	Data     elf.Data  // ELFDATA2LSB or ELFDATA2MSB (default LSB)
	Type     elf.Type  // default ET_DYN
	Machine  elf.Machine
	Soname   string
	Needed   []string
	Sections []Section
	// NoDynamic leaves out .dynamic and .dynstr (static objects).
	NoDynamic bool
}

type shdr struct {
	name           uint32
	typ            elf.SectionType
	flags          uint64
	off, size      uint64
	link, info     uint32
	align, entsize uint64
}

// Build returns the bytes of the ELF file.
func Build(s Spec) []byte {
	if s.Class == elf.ELFCLASSNONE {
		s.Class = elf.ELFCLASS64
	}
	if s.Data == elf.ELFDATANONE {
		s.Data = elf.ELFDATA2LSB
	}
	if s.Type == elf.ET_NONE {
		s.Type = elf.ET_DYN
	}
	if s.Machine == elf.EM_NONE {
		s.Machine = elf.EM_X86_64
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if s.Data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	is64 := s.Class == elf.ELFCLASS64
	ehsize, shentsize := 52, 40
	if is64 {
		ehsize, shentsize = 64, 64
	}

	var shstr bytes.Buffer
	shstr.WriteByte(0)
	addName := func(n string) uint32 {
		off := uint32(shstr.Len())
		shstr.WriteString(n)
		shstr.WriteByte(0)
		return off
	}

	body := bytes.NewBuffer(make([]byte, ehsize))
	place := func(data []byte) (uint64, uint64) {
		for body.Len()%8 != 0 {
			body.WriteByte(0)
		}
		off := body.Len()
		body.Write(data)
		return uint64(off), uint64(len(data))
	}

	headers := []shdr{{}}
	if !s.NoDynamic {
		var dynstr bytes.Buffer
		dynstr.WriteByte(0)
		str := func(v string) uint64 {
			off := dynstr.Len()
			dynstr.WriteString(v)
			dynstr.WriteByte(0)
			return uint64(off)
		}
		type dyn struct{ tag, val uint64 }
		var dyns []dyn
		for _, n := range s.Needed {
			dyns = append(dyns, dyn{uint64(elf.DT_NEEDED), str(n)})
		}
		if s.Soname != "" {
			dyns = append(dyns, dyn{uint64(elf.DT_SONAME), str(s.Soname)})
		}
		dyns = append(dyns, dyn{uint64(elf.DT_NULL), 0})
		var dynamic bytes.Buffer
		for _, d := range dyns {
			if is64 {
				binary.Write(&dynamic, bo, d.tag)
				binary.Write(&dynamic, bo, d.val)
			} else {
				binary.Write(&dynamic, bo, uint32(d.tag))
				binary.Write(&dynamic, bo, uint32(d.val))
			}
		}
		off, size := place(dynstr.Bytes())
		headers = append(headers, shdr{name: addName(".dynstr"), typ: elf.SHT_STRTAB, flags: uint64(elf.SHF_ALLOC), off: off, size: size, align: 1})
		off, size = place(dynamic.Bytes())
		entsize := uint64(8)
		if is64 {
			entsize = 16
		}
		headers = append(headers, shdr{name: addName(".dynamic"), typ: elf.SHT_DYNAMIC, flags: uint64(elf.SHF_ALLOC | elf.SHF_WRITE), off: off, size: size, link: 1, align: 8, entsize: entsize})
	}
	for _, sec := range s.Sections {
		off, size := place(sec.Data)
		headers = append(headers, shdr{name: addName(sec.Name), typ: elf.SHT_PROGBITS, flags: uint64(elf.SHF_ALLOC), off: off, size: size, align: 8})
	}
	shstrName := addName(".shstrtab")
	off, size := place(shstr.Bytes())
	headers = append(headers, shdr{name: shstrName, typ: elf.SHT_STRTAB, off: off, size: size, align: 1})

	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := body.Len()
	for _, h := range headers {
		if is64 {
			binary.Write(body, bo, h.name)
			binary.Write(body, bo, uint32(h.typ))
			binary.Write(body, bo, h.flags)
			binary.Write(body, bo, uint64(0)) // addr
			binary.Write(body, bo, h.off)
			binary.Write(body, bo, h.size)
			binary.Write(body, bo, h.link)
			binary.Write(body, bo, h.info)
			binary.Write(body, bo, h.align)
			binary.Write(body, bo, h.entsize)
		} else {
			binary.Write(body, bo, h.name)
			binary.Write(body, bo, uint32(h.typ))
			binary.Write(body, bo, uint32(h.flags))
			binary.Write(body, bo, uint32(0)) // addr
			binary.Write(body, bo, uint32(h.off))
			binary.Write(body, bo, uint32(h.size))
			binary.Write(body, bo, h.link)
			binary.Write(body, bo, h.info)
			binary.Write(body, bo, uint32(h.align))
			binary.Write(body, bo, uint32(h.entsize))
		}
	}

	out := body.Bytes()
	ident := out[:16]
	copy(ident, elf.ELFMAG)
	ident[elf.EI_CLASS] = byte(s.Class)
	ident[elf.EI_DATA] = byte(s.Data)
	ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	h := bytes.NewBuffer(nil)
	binary.Write(h, bo, uint16(s.Type))
	binary.Write(h, bo, uint16(s.Machine))
	binary.Write(h, bo, uint32(elf.EV_CURRENT))
	if is64 {
		binary.Write(h, bo, uint64(0)) // entry
		binary.Write(h, bo, uint64(0)) // phoff
		binary.Write(h, bo, uint64(shoff))
	} else {
		binary.Write(h, bo, uint32(0))
		binary.Write(h, bo, uint32(0))
		binary.Write(h, bo, uint32(shoff))
	}
	binary.Write(h, bo, uint32(0)) // flags
	binary.Write(h, bo, uint16(ehsize))
	binary.Write(h, bo, uint16(0)) // phentsize
	binary.Write(h, bo, uint16(0)) // phnum
	binary.Write(h, bo, uint16(shentsize))
	binary.Write(h, bo, uint16(len(headers)))
	binary.Write(h, bo, uint16(len(headers)-1)) // shstrndx
	copy(out[16:], h.Bytes())
	return out
}

// Archive returns a GNU static archive holding the given members, with a
// long-name table when a name does not fit the 16-byte field.
func Archive(members map[string][]byte, order []string) []byte {
	var buf bytes.Buffer
	buf.WriteString("!<arch>\n")
	var long bytes.Buffer
	names := map[string]string{}
	for _, n := range order {
		if len(n)+1 > 16 {
			names[n] = "/" + itoa(long.Len())
			long.WriteString(n + "/\n")
		} else {
			names[n] = n + "/"
		}
	}
	writeMember := func(name string, data []byte) {
		hdr := []byte(pad(name, 16) + pad("0", 12) + pad("0", 6) + pad("0", 6) + pad("644", 8) + pad(itoa(len(data)), 10) + "`\n")
		buf.Write(hdr)
		buf.Write(data)
		if len(data)%2 == 1 {
			buf.WriteByte('\n')
		}
	}
	if long.Len() > 0 {
		writeMember("//", long.Bytes())
	}
	for _, n := range order {
		writeMember(names[n], members[n])
	}
	return buf.Bytes()
}

func pad(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
