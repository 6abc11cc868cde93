package fatbin

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const (
	// ContainerMagic opens every fatbin container.
	ContainerMagic = 0xBA55ED50
	containerHdr   = 16
	// minEntryHdr covers the fields read below (flags at 0x28, the
	// decompressed size at 0x38). Real headers are 64 to 112 bytes.
	minEntryHdr = 0x40
)

// Entry header flags (docs/fatbin.md).
const (
	FlagLZ4 = 0x2000 // payload is a raw LZ4 block (CUDA 11/12)
	// FlagZSTD marks a ZSTD frame payload (CUDA 13).
	FlagZSTD = 0x8000
	// FlagArchSpecific is what makes cuobjdump print sm_90a rather than
	// sm_90, for cubin and PTX entries alike (verified with fatbinary and
	// cuobjdump 12.5).
	FlagArchSpecific = 0x100000
)

// Kind is the type of a fatbin entry.
type Kind uint16

const (
	KindPTX   Kind = 1
	KindCubin Kind = 2
	// KindListed16 is a kind CUDA 13 libraries carry (public notes call it
	// another cubin form). cuobjdump 12.5 prints it as `Fatbin <unknown
	// kind> code:` and still lists its `arch =` line, so it counts in
	// Archs, but neither as SASS nor as PTX.
	KindListed16 Kind = 0x10
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

// Known reports whether the kind is one this package understands: PTX or
// an ELF cubin.
func (k Kind) Known() bool { return k == KindPTX || k == KindCubin }

// Listed reports whether `cuobjdump FILE` prints an `arch =` line for
// entries of this kind. Other kinds (CUDA 13's 0x40, reportedly not
// listed) are kept as entries but not counted.
func (k Kind) Listed() bool { return k.Known() || k == KindListed16 }

// Entry is one device code image, as its header describes it.
type Entry struct {
	Kind Kind
	// HeaderSize is the entry header's own size: 64 for cubins, 72 or 80
	// for PTX, 96 to 112 in relocatable and CUDA 13 fatbins.
	HeaderSize int
	// SM is the architecture number: 90 for sm_90.
	SM int
	// Flags are the raw header flags; FlagArchSpecific gives the `a`
	// suffix. Bits not understood yet (family targets, CUDA 12.9+, may be
	// one) are kept for whoever reads the detailed output.
	Flags uint64
	// Offset of the entry header within the parsed section.
	Offset int
}

// Specific reports an architecture-specific target (sm_90a).
func (e Entry) Specific() bool { return e.Flags&FlagArchSpecific != 0 }

// Compression names the payload's compression: "lz4", "zstd" or "".
func (e Entry) Compression() string {
	switch {
	case e.Flags&FlagZSTD != 0:
		return "zstd"
	case e.Flags&FlagLZ4 != 0:
		return "lz4"
	}
	return ""
}

// Arch is the name cuobjdump prints: "sm_90", "sm_90a".
func (e Entry) Arch() string {
	s := "sm_" + strconv.Itoa(e.SM)
	if e.Specific() {
		s += "a"
	}
	return s
}

// Parse walks the containers placed back to back in a section and returns
// every entry, unknown kinds included. Containers may be followed by zero
// padding; anything else after the last container is an error, as is any
// header that points past the data. The entries read before an error are
// returned with it.
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

// maxSM bounds the architecture number of PTX and cubin entries: a larger
// one means the header is not what we think it is.
const maxSM = 10000

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
		if hdrSize < minEntryHdr || hdrSize > uint64(len(h)) {
			return entries, fmt.Errorf("fatbin entry at offset %#x: header size %d out of range", off, hdrSize)
		}
		if payloadSize > uint64(len(h))-hdrSize {
			return entries, fmt.Errorf("fatbin entry at offset %#x: payload of %d bytes runs past its container", off, payloadSize)
		}
		// Other kinds are recorded whatever their SM field holds; only the
		// kinds that become architectures must name a plausible one.
		if kind.Listed() && (sm == 0 || sm > maxSM) {
			return entries, fmt.Errorf("fatbin entry at offset %#x: implausible architecture sm_%d", off, sm)
		}
		entries = append(entries, Entry{
			Kind:       kind,
			HeaderSize: int(hdrSize),
			SM:         int(sm),
			Flags:      binary.LittleEndian.Uint64(h[0x28:]),
			Offset:     off,
		})
		off += int(hdrSize + payloadSize)
	}
	return entries, nil
}

// Archs returns the distinct architecture names of the listed entries
// (PTX, cubin, kind 0x10), ordered by SM number, the generic target before
// its 'a' variant: the `arch =` lines of `cuobjdump FILE`.
func Archs(entries []Entry) []string {
	return archs(entries, Kind.Listed)
}

// ArchsOfKind returns the distinct architectures of one kind's entries:
// KindCubin for the SASS a GPU runs as is, KindPTX for what a driver can
// JIT-compile for newer GPUs.
func ArchsOfKind(entries []Entry, kind Kind) []string {
	return archs(entries, func(k Kind) bool { return k == kind })
}

func archs(entries []Entry, keep func(Kind) bool) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, e := range entries {
		if !keep(e.Kind) {
			continue
		}
		if a := e.Arch(); !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	SortArchs(out)
	return out
}

// UnknownKinds returns the distinct kinds that are neither PTX nor cubin,
// in ascending order, or nil.
func UnknownKinds(entries []Entry) []Kind {
	var out []Kind
	seen := map[Kind]bool{}
	for _, e := range entries {
		if !e.Kind.Known() && !seen[e.Kind] {
			seen[e.Kind] = true
			out = append(out, e.Kind)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// SortArchs orders architecture names by SM number, then suffix: sm_90,
// sm_90a, sm_100.
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
