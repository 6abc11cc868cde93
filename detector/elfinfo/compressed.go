package elfinfo

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// checkCompressed vets the content of an SHF_COMPRESSED section (its
// compression header, then the compressed stream) before anything
// decompresses it: the size the header claims must be within limit, and
// so must every zstd frame's window (the decoder allocates the window up
// front, whatever the data then holds).
func checkCompressed(class elf.Class, bo binary.ByteOrder, raw []byte, limit uint64, fileSize int) error {
	var typ elf.CompressionType
	var size uint64
	var hdr int
	switch class {
	case elf.ELFCLASS32:
		hdr = 12
		if len(raw) < hdr {
			return fmt.Errorf("compression header truncated")
		}
		typ, size = elf.CompressionType(bo.Uint32(raw)), uint64(bo.Uint32(raw[4:]))
	default:
		hdr = 24
		if len(raw) < hdr {
			return fmt.Errorf("compression header truncated")
		}
		typ, size = elf.CompressionType(bo.Uint32(raw)), bo.Uint64(raw[8:])
	}
	if size > limit {
		return fmt.Errorf("compressed (%v) to be %d bytes once decompressed: refused, more than the %d bytes allowed in a %d-byte file",
			typ, size, limit, fileSize)
	}
	switch typ {
	case elf.COMPRESS_ZLIB:
		return nil // zlib's window is 32 KiB, and the output is read up to size
	case elf.COMPRESS_ZSTD:
		w, err := zstdMaxWindow(raw[hdr:])
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		if w > limit {
			return fmt.Errorf("zstd frame asks for a %d-byte window: refused, more than the %d bytes allowed in a %d-byte file", w, limit, fileSize)
		}
		return nil
	}
	return fmt.Errorf("unknown compression type %d", typ)
}

// zstdMaxWindow walks the frames of a zstd stream (RFC 8878), without
// decoding them, and returns the largest window one asks for.
func zstdMaxWindow(src []byte) (uint64, error) {
	const magic, skipMask, skipMagic = 0xFD2FB528, 0xFFFFFFF0, 0x184D2A50
	var most uint64
	off := 0
	for off < len(src) {
		if len(src)-off < 4 {
			return 0, fmt.Errorf("frame at offset %d: truncated magic", off)
		}
		m := binary.LittleEndian.Uint32(src[off:])
		if m&skipMask == skipMagic {
			if len(src)-off < 8 {
				return 0, fmt.Errorf("skippable frame at offset %d: truncated", off)
			}
			n := uint64(binary.LittleEndian.Uint32(src[off+4:]))
			if n > uint64(len(src)-off-8) {
				return 0, fmt.Errorf("skippable frame at offset %d: runs past the end", off)
			}
			off += 8 + int(n)
			continue
		}
		if m != magic {
			return 0, fmt.Errorf("frame at offset %d: bad magic %#08x", off, m)
		}
		w, next, err := zstdFrame(src, off)
		if err != nil {
			return 0, err
		}
		most = max(most, w)
		off = next
	}
	return most, nil
}

// zstdFrame reads the frame at off: its window and where the next
// frame starts.
func zstdFrame(src []byte, off int) (window uint64, next int, err error) {
	window, p, checksum, err := zstdFrameHeader(src, off)
	if err != nil {
		return 0, 0, err
	}
	if p, err = zstdBlocks(src, off, p); err != nil {
		return 0, 0, err
	}
	if checksum {
		if len(src)-p < 4 {
			return 0, 0, fmt.Errorf("frame at offset %d: truncated checksum", off)
		}
		p += 4
	}
	return window, p, nil
}

// zstdFrameHeader reads the header of the frame at off: its window,
// where its first block starts, and whether a checksum ends it.
func zstdFrameHeader(src []byte, off int) (window uint64, p int, checksum bool, err error) {
	truncated := fmt.Errorf("frame at offset %d: truncated header", off)
	p = off + 4
	if p >= len(src) {
		return 0, 0, false, truncated
	}
	fhd := src[p]
	p++
	fcsFlag, single, didFlag := fhd>>6, fhd&0x20 != 0, fhd&0x03
	checksum = fhd&0x04 != 0
	if fhd&0x08 != 0 {
		return 0, 0, false, fmt.Errorf("frame at offset %d: reserved bit set", off)
	}
	if !single {
		if p >= len(src) {
			return 0, 0, false, truncated
		}
		wd := src[p]
		p++
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
	}
	p += [4]int{0, 1, 2, 4}[didFlag]
	fcsSize := [4]int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		fcsSize = 1
	}
	if p+fcsSize > len(src) {
		return 0, 0, false, truncated
	}
	if single {
		window = zstdContentSize(src[p : p+fcsSize])
	}
	return window, p + fcsSize, checksum, nil
}

// zstdContentSize decodes a Frame_Content_Size field: a single-segment
// frame's window.
func zstdContentSize(field []byte) uint64 {
	var fcs [8]byte
	copy(fcs[:], field)
	size := binary.LittleEndian.Uint64(fcs[:])
	if len(field) == 2 {
		size += 256
	}
	return size
}

// zstdBlocks skips the blocks of the frame at off, the first at p, and
// returns where the last one ends.
func zstdBlocks(src []byte, off, p int) (int, error) {
	for {
		if len(src)-p < 3 {
			return 0, fmt.Errorf("frame at offset %d: truncated block header at %d", off, p)
		}
		h := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		p += 3
		size := int(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte repeated size times
			size = 1
		case 3:
			return 0, fmt.Errorf("frame at offset %d: reserved block type", off)
		}
		if size > len(src)-p {
			return 0, fmt.Errorf("frame at offset %d: block runs past the end", off)
		}
		p += size
		if h&1 != 0 {
			return p, nil
		}
	}
}

// checkNameTable vets the section name table before debug/elf's NewFile
// decompresses it: NewFile is run first on a copy of the ELF header that
// names no table (so it decompresses nothing), which gives the sections
// and their compression headers.
func checkNameTable(data []byte, limit uint64) error {
	field, idx, ok := nameTableIndex(data)
	if !ok {
		return nil
	}
	head := bytes.Clone(data[:64])
	head[field], head[field+1] = 0, 0
	f, err := elf.NewFile(&overlay{head: head, data: data})
	if err != nil || len(f.Sections) == 0 {
		return nil // NewFile refuses it again, before any decompression
	}
	if idx == int(elf.SHN_XINDEX) {
		idx = int(f.Sections[0].Link)
	}
	if idx >= len(f.Sections) {
		return nil
	}
	sec := f.Sections[idx]
	if sec.Flags&elf.SHF_COMPRESSED == 0 || sec.Type != elf.SHT_STRTAB {
		return nil
	}
	if sec.Offset > uint64(len(data)) || sec.FileSize > uint64(len(data))-sec.Offset {
		return fmt.Errorf("section name table runs past the end of the file")
	}
	if err := checkCompressed(f.Class, f.ByteOrder, data[sec.Offset:sec.Offset+sec.FileSize], limit, len(data)); err != nil {
		return fmt.Errorf("section name table: %w", err)
	}
	return nil
}

// nameTableIndex reads e_shstrndx from the ELF header: the field's
// offset and the index, and ok only when the table may be compressed
// and needs the full check (not for what NewFile refuses anyway).
func nameTableIndex(data []byte) (field, idx int, ok bool) {
	if len(data) < 64 || !IsELF(data) {
		return 0, 0, false // NewFile refuses it
	}
	switch elf.Class(data[elf.EI_CLASS]) {
	case elf.ELFCLASS32:
		field = 0x32
	case elf.ELFCLASS64:
		field = 0x3E
	default:
		return 0, 0, false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if elf.Data(data[elf.EI_DATA]) == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	idx = int(bo.Uint16(data[field:]))
	return field, idx, idx != 0 && maybeCompressed(data, bo, idx)
}

// maybeCompressed reads the flags of section header idx straight from
// the table, as NewFile will: false when they lack SHF_COMPRESSED, the
// case of every real file, which then needs no second parse. Anything
// unusual (extended numbering, a table out of the file) is left to the
// full check.
func maybeCompressed(data []byte, bo binary.ByteOrder, idx int) bool {
	is64 := elf.Class(data[elf.EI_CLASS]) == elf.ELFCLASS64
	var shoff uint64
	var shentsize, flagSize int
	if is64 {
		shoff, shentsize, flagSize = bo.Uint64(data[0x28:]), int(bo.Uint16(data[0x3A:])), 8
	} else {
		shoff, shentsize, flagSize = uint64(bo.Uint32(data[0x20:])), int(bo.Uint16(data[0x2E:])), 4
	}
	if idx >= int(elf.SHN_LORESERVE) || shentsize < 8+flagSize || shoff > uint64(len(data)) {
		return true
	}
	at := shoff + uint64(idx)*uint64(shentsize) + 8 // sh_flags, after sh_name and sh_type
	if at+uint64(flagSize) > uint64(len(data)) {
		return true
	}
	var flags uint64
	if is64 {
		flags = bo.Uint64(data[at:])
	} else {
		flags = uint64(bo.Uint32(data[at:]))
	}
	return elf.SectionFlag(flags)&elf.SHF_COMPRESSED != 0
}

// overlay reads data with its first bytes replaced by head.
type overlay struct {
	head, data []byte
}

func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	n, err := bytes.NewReader(o.data).ReadAt(p, off)
	if off < int64(len(o.head)) {
		copy(p, o.head[off:])
	}
	return n, err
}
