// Package fatbin lists the device code images in NVIDIA fatbin containers,
// the payload of the ELF sections .nv_fatbin and __nv_relfatbin. It reads
// what `cuobjdump FILE` prints as `arch = sm_XX` without running it.
//
// The layout (docs: domain-fatbin.md) was verified against cuobjdump 11.8
// on real CUDA libraries. All fields are little-endian: fatbins are written
// for NVIDIA GPUs, whatever the host.
package fatbin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const (
	// ContainerMagic opens every fatbin container.
	ContainerMagic = 0xBA55ED50
	containerHdr   = 16
	minEntryHdr    = 0x40

	flagCompressed = 0x2000
)

// Kind is the type of a fatbin entry.
type Kind uint16

const (
	KindPTX   Kind = 1
	KindCubin Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "ptx"
	case KindCubin:
		return "elf"
	}
	return "kind" + strconv.Itoa(int(k))
}

// Entry is one device code image.
type Entry struct {
	Kind       Kind
	SM         int  // SM number from the entry header: 90 for sm_90
	Specific   bool // architecture-specific variant: sm_90a
	Compressed bool
	// Offset of the entry header within the parsed section.
	Offset int
}

// Arch is the name cuobjdump prints: "sm_90", "sm_90a".
func (e Entry) Arch() string {
	s := "sm_" + strconv.Itoa(e.SM)
	if e.Specific {
		s += "a"
	}
	return s
}

// Parse walks the containers placed back to back in a section and returns
// every entry. Containers may be followed by zero padding; anything else
// after the last container is an error, as is any header that points past
// the data.
func Parse(section []byte) ([]Entry, error) {
	var entries []Entry
	off := 0
	for off < len(section) {
		if isZero(section[off:]) {
			break
		}
		if len(section)-off < containerHdr {
			return entries, fmt.Errorf("fatbin container at offset %#x: truncated header", off)
		}
		magic := binary.LittleEndian.Uint32(section[off:])
		if magic != ContainerMagic {
			return entries, fmt.Errorf("fatbin container at offset %#x: bad magic %#08x", off, magic)
		}
		hdrSize := int(binary.LittleEndian.Uint16(section[off+6:]))
		fatSize := binary.LittleEndian.Uint64(section[off+8:])
		if hdrSize < containerHdr {
			return entries, fmt.Errorf("fatbin container at offset %#x: header size %d too small", off, hdrSize)
		}
		start := off + hdrSize
		if fatSize > uint64(len(section)) || start > len(section) || uint64(len(section)-start) < fatSize {
			return entries, fmt.Errorf("fatbin container at offset %#x: size %d runs past the section (%d bytes)", off, fatSize, len(section))
		}
		end := start + int(fatSize)
		got, err := parseEntries(section, start, end)
		entries = append(entries, got...)
		if err != nil {
			return entries, err
		}
		off = end
	}
	return entries, nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func parseEntries(section []byte, off, end int) ([]Entry, error) {
	var entries []Entry
	for off < end {
		if end-off < minEntryHdr {
			return entries, fmt.Errorf("fatbin entry at offset %#x: truncated header", off)
		}
		h := section[off:end]
		kind := Kind(binary.LittleEndian.Uint16(h[0:]))
		hdrSize := uint64(binary.LittleEndian.Uint32(h[4:]))
		payloadSize := binary.LittleEndian.Uint64(h[8:])
		sm := binary.LittleEndian.Uint32(h[0x1C:])
		flags := binary.LittleEndian.Uint64(h[0x28:])
		if hdrSize < minEntryHdr || hdrSize > uint64(len(h)) {
			return entries, fmt.Errorf("fatbin entry at offset %#x: header size %d out of range", off, hdrSize)
		}
		if payloadSize > uint64(len(h))-hdrSize {
			return entries, fmt.Errorf("fatbin entry at offset %#x: payload of %d bytes runs past its container", off, payloadSize)
		}
		if kind != KindPTX && kind != KindCubin {
			return entries, fmt.Errorf("fatbin entry at offset %#x: unknown kind %d", off, kind)
		}
		if sm == 0 || sm > 10000 {
			return entries, fmt.Errorf("fatbin entry at offset %#x: implausible architecture sm_%d", off, sm)
		}
		e := Entry{Kind: kind, SM: int(sm), Compressed: flags&flagCompressed != 0, Offset: off}
		payload := h[hdrSize : hdrSize+payloadSize]
		if c := uint64(binary.LittleEndian.Uint32(h[0x10:])); e.Compressed && c > 0 && c <= payloadSize {
			payload = payload[:c] // the rest pads to 8 bytes
		}
		e.Specific = archSpecific(e, payload)
		entries = append(entries, e)
		off += int(hdrSize + payloadSize)
	}
	return entries, nil
}

// prefixLen is how much of a payload is decoded to find the 'a' marker: an
// ELF header for a cubin, the first lines of PTX for its .target.
const prefixLen = 4096

// archSpecific reports whether the image is for an architecture-specific
// target (sm_90a). The entry header carries only the SM number, so the
// marker is read from the payload: a cubin's ELF e_flags, or the .target
// line of PTX. Compressed payloads are LZ4 blocks; only a prefix is decoded.
func archSpecific(e Entry, payload []byte) bool {
	if e.Compressed {
		// A corrupt tail still leaves a usable prefix; the header is first.
		payload, _ = lz4Prefix(payload, prefixLen)
	}
	if e.Kind == KindCubin {
		return cubinArchSpecific(payload)
	}
	return ptxArchSpecific(payload, e.SM)
}

// ELF e_flags of CUDA cubins, as LLVM's BinaryFormat/ELF.h names them. Up to
// ABI version 7 the SM number is the low byte and EF_CUDA_ACCELERATORS_V1
// (0x800) marks the 'a' variant; ABI version 8 (CUDA 13) moved the SM to bits
// 8-15 and the marker to EF_CUDA_ACCELERATORS (0x8).
const (
	efCudaAcceleratorsV1 = 0x800
	efCudaAccelerators   = 0x8
	emCuda               = 190
)

func cubinArchSpecific(img []byte) bool {
	if len(img) < 52 || string(img[:4]) != "\x7fELF" {
		return false
	}
	var flagsOff int
	switch img[4] {
	case 1: // ELFCLASS32
		flagsOff = 0x24
	case 2: // ELFCLASS64
		flagsOff = 0x30
	default:
		return false
	}
	if binary.LittleEndian.Uint16(img[18:]) != emCuda || len(img) < flagsOff+4 {
		return false
	}
	flags := binary.LittleEndian.Uint32(img[flagsOff:])
	if img[8] >= 8 { // EI_ABIVERSION
		return flags&efCudaAccelerators != 0
	}
	return flags&efCudaAcceleratorsV1 != 0
}

func ptxArchSpecific(text []byte, sm int) bool {
	s := string(text)
	i := strings.Index(s, ".target")
	if i < 0 {
		return false
	}
	line := s[i+len(".target"):]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	want := "sm_" + strconv.Itoa(sm) + "a"
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }) {
		if f == want {
			return true
		}
	}
	return false
}

// Archs returns the distinct architecture names of entries, ordered by SM
// number, the generic target before its 'a' variant.
func Archs(entries []Entry) []string {
	type key struct {
		sm       int
		specific bool
	}
	seen := map[key]bool{}
	var keys []key
	for _, e := range entries {
		k := key{e.SM, e.Specific}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sm != keys[j].sm {
			return keys[i].sm < keys[j].sm
		}
		return !keys[i].specific && keys[j].specific
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = Entry{SM: k.sm, Specific: k.specific}.Arch()
	}
	return out
}

// SortArchs orders architecture names like Archs does.
func SortArchs(archs []string) {
	sort.Slice(archs, func(i, j int) bool { return archLess(archs[i], archs[j]) })
}

func archLess(a, b string) bool {
	na, sa := splitArch(a)
	nb, sb := splitArch(b)
	if na != nb {
		return na < nb
	}
	return sa < sb
}

func splitArch(a string) (int, string) {
	s := strings.TrimPrefix(a, "sm_")
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(s[:i])
	return n, s[i:]
}

var errLZ4 = errors.New("corrupt lz4 block")

// lz4Length reads an LZ4 length: the 4-bit value from the token, extended
// by bytes that follow while the sum keeps hitting 15, then 255.
func lz4Length(src []byte, i *int, n int) (int, bool) {
	if n != 15 {
		return n, true
	}
	for {
		if *i >= len(src) {
			return 0, false
		}
		b := src[*i]
		*i++
		n += int(b)
		if b != 255 {
			return n, true
		}
	}
}

// lz4Prefix decodes the first n bytes of a raw LZ4 block (no frame), or all
// of it when shorter.
func lz4Prefix(src []byte, n int) ([]byte, error) {
	dst := make([]byte, 0, n)
	i := 0
	for i < len(src) && len(dst) < n {
		token := src[i]
		i++
		lit, ok := lz4Length(src, &i, int(token>>4))
		if !ok {
			return dst, errLZ4
		}
		if lit > len(src)-i {
			return dst, errLZ4
		}
		dst = append(dst, src[i:i+lit]...)
		i += lit
		if i >= len(src) || len(dst) >= n {
			break // the last sequence has literals only
		}
		if i+2 > len(src) {
			return dst, errLZ4
		}
		offset := int(src[i]) | int(src[i+1])<<8
		i += 2
		if offset == 0 || offset > len(dst) {
			return dst, errLZ4
		}
		ml, ok := lz4Length(src, &i, int(token&15))
		if !ok {
			return dst, errLZ4
		}
		ml += 4 // the minimum match
		from := len(dst) - offset
		for k := 0; k < ml && len(dst) < n; k++ {
			dst = append(dst, dst[from+k])
		}
	}
	if len(dst) > n {
		dst = dst[:n]
	}
	return dst, nil
}
