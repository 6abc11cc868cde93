// Package testfatbin writes fatbin containers with chosen architectures,
// laid out as domain-fatbin.md describes (and as cuobjdump 11.8 and 12.5
// read), so tests can check the parser against images whose truth they
// set: CUDA 11/12 entries (LZ4, 64/72-byte headers) and CUDA 13-shaped ones
// (ZSTD payloads, 80 to 112-byte headers, entry kinds 0x10 and 0x40).
package testfatbin

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Image is one fatbin entry.
type Image struct {
	PTX bool // PTX text instead of a cubin
	// Kind overrides the entry kind (1 PTX, 2 cubin), for kinds the
	// parser does not know, such as CUDA 13's 0x10 and 0x40.
	Kind int
	SM   int
	// Specific marks an architecture-specific target (sm_90a) as NVIDIA's
	// tools do: header flag 0x100000, and for a cubin also its e_flags
	// accelerator bit, and for PTX its .target line.
	Specific bool
	// ELFAccel sets only the cubin's e_flags accelerator bit, leaving the
	// header unmarked: what a few sm_50/60/61 cubins of libcublas 12.5
	// carry, and what cuobjdump lists without the suffix.
	ELFAccel bool
	Compress bool // LZ4-compress the payload (CUDA 11/12)
	ZSTD     bool // ZSTD-compress the payload (CUDA 13)
	// ABI8 writes the cubin's e_flags in the CUDA 13 layout.
	ABI8 bool
	// HeaderSize overrides the entry header size (PTX in relocatable
	// fatbins uses 96 or 112, CUDA 13 80, 104 or 112).
	HeaderSize int
	// ExtraFlags are ORed into the header flags (CUDA 13 sm_12x cubins
	// carry 0x1000000).
	ExtraFlags uint64
	// SectionTable gives the cubin an ELF section header table (a null
	// section and .shstrtab): cuobjdump 12.5 refuses a cubin without one
	// ("Invalid ELF"), 11.8 does not. Off, the bytes stay those the
	// committed sample was generated with.
	SectionTable bool
}

// Header flags (domain-fatbin.md).
const (
	flag64           = 0x1
	flagLinux        = 0x10
	flagLZ4          = 0x2000
	flagZSTD         = 0x8000
	flagArchSpecific = 0x100000
)

// Container returns one fatbin container holding the images.
func Container(images ...Image) []byte {
	var entries bytes.Buffer
	for _, im := range images {
		entries.Write(entry(im))
	}
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint32(0xBA55ED50))
	binary.Write(&out, binary.LittleEndian, uint16(1))
	binary.Write(&out, binary.LittleEndian, uint16(16))
	binary.Write(&out, binary.LittleEndian, uint64(entries.Len()))
	out.Write(entries.Bytes())
	return out.Bytes()
}

// Section concatenates containers back to back, as a .nv_fatbin section.
func Section(containers ...[]byte) []byte {
	return bytes.Join(containers, nil)
}

// Flags returns the header flags Container writes for im.
func Flags(im Image) uint64 {
	flags := uint64(flag64|flagLinux) | im.ExtraFlags
	if im.Specific {
		flags |= flagArchSpecific
	}
	if im.ZSTD {
		flags |= flagZSTD
	} else if im.Compress {
		flags |= flagLZ4
	}
	return flags
}

// HeaderSize returns the entry header size Container writes for im.
func HeaderSize(im Image) int {
	switch {
	case im.HeaderSize != 0:
		return im.HeaderSize
	case im.PTX:
		return 72
	}
	return 64
}

// KindOf returns the entry kind Container writes for im.
func KindOf(im Image) int {
	switch {
	case im.Kind != 0:
		return im.Kind
	case im.PTX:
		return 1
	}
	return 2
}

var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

func entry(im Image) []byte {
	payload := cubin(im)
	if im.PTX {
		payload = ptx(im)
	}
	hdrSize := HeaderSize(im)
	rawSize := len(payload)
	compressedSize := 0
	switch {
	case im.ZSTD:
		payload = zstdEncoder.EncodeAll(payload, nil)
		compressedSize = len(payload)
	case im.Compress:
		buf := make([]byte, lz4.CompressBlockBound(len(payload)))
		n, err := lz4.CompressBlock(payload, buf, nil)
		if err != nil || n == 0 {
			panic(fmt.Sprintf("testfatbin: lz4: %v (n=%d)", err, n))
		}
		payload = buf[:n]
		compressedSize = n
	}
	for len(payload)%8 != 0 {
		payload = append(payload, 0)
	}
	h := make([]byte, hdrSize)
	le := binary.LittleEndian
	le.PutUint16(h[0:], uint16(KindOf(im)))
	le.PutUint16(h[2:], 0x0101)
	le.PutUint32(h[4:], uint32(hdrSize))
	le.PutUint64(h[8:], uint64(len(payload)))
	le.PutUint32(h[0x10:], uint32(compressedSize))
	if im.PTX {
		le.PutUint32(h[0x14:], 64)
		le.PutUint16(h[0x18:], 8)
		le.PutUint16(h[0x1A:], 7)
	} else {
		le.PutUint16(h[0x18:], 7)
		le.PutUint16(h[0x1A:], 1)
	}
	le.PutUint32(h[0x1C:], uint32(im.SM))
	le.PutUint64(h[0x28:], Flags(im))
	if im.Compress || im.ZSTD {
		le.PutUint64(h[0x38:], uint64(rawSize))
	}
	return append(h, payload...)
}

// cubin is a CUDA ELF header followed by filler that compresses well.
func cubin(im Image) []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 2, 1, 1 // 64-bit, little-endian, version 1
	h[7] = 0x33                // EI_OSABI: CUDA
	le := binary.LittleEndian
	le.PutUint16(h[16:], 2)   // ET_EXEC
	le.PutUint16(h[18:], 190) // EM_CUDA
	le.PutUint32(h[20:], 1)
	accel := im.Specific || im.ELFAccel
	var flags uint32
	if im.ABI8 {
		h[8] = 8
		flags = uint32(im.SM)<<16 | uint32(im.SM)<<8
		if accel {
			flags |= 0x8
		}
	} else {
		h[8] = 7
		flags = uint32(im.SM)<<16 | 0x500 | uint32(im.SM)
		if accel {
			flags |= 0x800
		}
	}
	le.PutUint32(h[48:], flags)
	filler := bytes.Repeat([]byte("device code "), 40)
	if !im.SectionTable {
		return append(h, filler...)
	}
	// Layout: header, .shstrtab, filler, section headers (null, .shstrtab).
	shstrtab := []byte("\x00.shstrtab\x00")
	shoff := len(h) + len(shstrtab) + len(filler)
	shoff += (8 - shoff%8) % 8
	le.PutUint64(h[40:], uint64(shoff)) // e_shoff
	le.PutUint16(h[52:], 64)            // e_ehsize
	le.PutUint16(h[54:], 56)            // e_phentsize
	le.PutUint16(h[58:], 64)            // e_shentsize
	le.PutUint16(h[60:], 2)             // e_shnum
	le.PutUint16(h[62:], 1)             // e_shstrndx
	out := append(append(append(h, shstrtab...), filler...), make([]byte, shoff-len(h)-len(shstrtab)-len(filler))...)
	out = append(out, make([]byte, 64)...) // SHN_UNDEF
	sh := make([]byte, 64)
	le.PutUint32(sh[0:], 1)                      // sh_name: ".shstrtab"
	le.PutUint32(sh[4:], 3)                      // SHT_STRTAB
	le.PutUint64(sh[24:], 64)                    // sh_offset
	le.PutUint64(sh[32:], uint64(len(shstrtab))) // sh_size
	le.PutUint64(sh[48:], 1)                     // sh_addralign
	return append(out, sh...)
}

func ptx(im Image) []byte {
	target := fmt.Sprintf("sm_%d", im.SM)
	if im.Specific {
		target += "a"
	}
	return []byte(fmt.Sprintf("//\n// Generated by NVIDIA NVVM Compiler\n//\n.version 7.8\n.target %s\n.address_size 64\n\n%s",
		target, bytes.Repeat([]byte("// filler\n"), 30)))
}
