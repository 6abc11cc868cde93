package fatbin

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"

	"github.com/nix-cuda/cuda-redist-find-features/lib/capability"
)

const (
	// ContainerMagic opens every fatbin container.
	ContainerMagic = 0xBA55ED50
	containerHdr   = 16
	// minEntryHdr covers the fields read below (flags at 0x28, the
	// decompressed size at 0x38). Real headers are 64 to 112 bytes.
	minEntryHdr = 0x40
)

// Entry header flags (docs/fatbin.md). Every bit here was seen set by
// NVIDIA's own fatbinary (12.5, 13.5) and read back by cuobjdump.
const (
	Flag64Bit = 0x1  // cuobjdump: compile_size = 64bit
	FlagLinux = 0x10 // cuobjdump: host = linux
	FlagLZ4   = 0x2000
	// FlagZSTD marks a ZSTD frame payload (CUDA 13).
	FlagZSTD = 0x8000
	// FlagArchSpecific is what makes cuobjdump print sm_90a rather than
	// sm_90, for cubin and PTX entries alike (verified with fatbinary and
	// cuobjdump 12.5 and 13.4).
	FlagArchSpecific = 0x100000
	// FlagFamilySpecific is what makes cuobjdump 13.4 print sm_100f: nvcc
	// 13.5 sets it for code=sm_100f and code=compute_100f. It is the only
	// place the f is recorded: the cubin itself (e_flags, .nv.compat) is
	// the same as for sm_100.
	FlagFamilySpecific = 0x200000
	// FlagCompat marks a header that carries a copy of the cubin's
	// .nv.compat attributes: a u32 offset (from the header's start) and a
	// u32 length at 0x40; at that offset a zero byte, then the length's
	// bytes of attributes; the header padded to 8 bytes. nvcc 13.5 sets it on sm_100 and later cubins.
	FlagCompat = 0x1000000

	// KnownFlags are the bits above; any other is reported by Anomalies.
	KnownFlags = Flag64Bit | FlagLinux | FlagLZ4 | FlagZSTD | FlagArchSpecific | FlagFamilySpecific | FlagCompat
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
	// KindConcatenated is what nvcc 13.5 --concat writes: one payload
	// holding several cubins, compressed together, described by a table
	// of entry headers inside this entry's own header (docs/fatbin.md).
	// cuobjdump 13.4 prints `Fatbin concatenated entry code:` and then an
	// indented block per inner cubin; Parse returns the inner headers as
	// entries of their own (Nested), after the concatenated one.
	KindConcatenated Kind = 0x100
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "ptx"
	case KindCubin:
		return "elf"
	case KindConcatenated:
		return "concatenated"
	}
	return "kind" + strconv.Itoa(int(k))
}

// Known reports whether the kind is one this package understands: PTX, an
// ELF cubin, or a concatenated entry (whose inner cubins are read).
func (k Kind) Known() bool { return k == KindPTX || k == KindCubin || k == KindConcatenated }

// Listed reports whether `cuobjdump FILE` prints an `arch =` line for
// entries of this kind. Other kinds (CUDA 13's 0x40, reportedly not
// listed) are kept as entries but not counted.
func (k Kind) Listed() bool { return k == KindPTX || k == KindCubin || k == KindListed16 }

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
	// Nested marks an entry read from the header table of a concatenated
	// entry: its code is part of that entry's payload.
	Nested bool
	// UnexplainedSize marks a header size the layouts in docs/fatbin.md
	// do not account for (Anomalies reports it). The entry is read all
	// the same: the size field says where the next one starts.
	UnexplainedSize bool
}

// Specific reports an architecture-specific target (sm_90a).
func (e Entry) Specific() bool { return e.Flags&FlagArchSpecific != 0 }

// Family reports a family-specific target (sm_100f).
func (e Entry) Family() bool { return e.Flags&FlagFamilySpecific != 0 }

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

// Arch is the name cuobjdump prints: "sm_90", "sm_90a", "sm_100f". An
// entry with both suffix flags (never seen; Anomalies reports it) is named
// by the narrower one, a.
func (e Entry) Arch() string {
	s := "sm_" + strconv.Itoa(e.SM)
	switch {
	case e.Specific():
		s += "a"
	case e.Family():
		s += "f"
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
		flags := binary.LittleEndian.Uint64(h[0x28:])
		entries = append(entries, Entry{
			Kind:            kind,
			HeaderSize:      int(hdrSize),
			SM:              int(sm),
			Flags:           flags,
			Offset:          off,
			UnexplainedSize: kind.Known() && !headerSizeExplained(kind, flags, h[:hdrSize]),
		})
		if kind == KindConcatenated {
			nested, err := parseConcatenated(h[:hdrSize], off)
			entries = append(entries, nested...)
			if err != nil {
				return entries, err
			}
		}
		off += int(hdrSize + payloadSize)
	}
	return entries, nil
}

// headerSizeExplained reports whether an entry header of this kind and
// flags is expected to be len(h) bytes long: 64 for a cubin, up to the end
// of its .nv.compat copy with FlagCompat; 72 for PTX, or up to the end of
// its options string; the end of the table for a concatenated entry. Other kinds have no known layout.
func headerSizeExplained(kind Kind, flags uint64, h []byte) bool {
	switch kind {
	case KindCubin:
		if flags&FlagCompat == 0 {
			return len(h) == minEntryHdr
		}
		end, ok := compatEnd(h)
		return ok && end == len(h)
	case KindPTX:
		// A u32 offset and a u32 length of the ptxas options string at
		// 0x40; the string, NUL-terminated, ends the header, padded to 8.
		// Both zero in the 72-byte headers of CUDA 11 and 12.
		if len(h) < 72 {
			return false
		}
		at, n := binary.LittleEndian.Uint32(h[0x40:]), binary.LittleEndian.Uint32(h[0x44:])
		if at == 0 && n == 0 {
			return len(h) == 72
		}
		end := (uint64(at) + uint64(n) + 1 + 7) &^ 7
		return at >= 72 && end == uint64(len(h))
	case KindConcatenated:
		return len(h) >= concatTable && concatCount+int(binary.LittleEndian.Uint32(h[concatCount+4:])) == len(h)
	}
	return false
}

// Layout of a concatenated entry's header after the common 64 bytes: a
// u32 count and a u32 length (of the count, itself and the table), then
// the table of inner entry headers
// (each laid out like an entry header, with 0x04 the inner code's offset
// in the decompressed payload instead of a header size).
const (
	concatCount = 0x40
	concatTable = 0x48
)

// parseConcatenated reads the inner entry headers of the concatenated
// entry whose header is h, at offset off of the section.
func parseConcatenated(h []byte, off int) ([]Entry, error) {
	if len(h) < concatTable {
		return nil, fmt.Errorf("fatbin concatenated entry at offset %#x: header of %d bytes has no table", off, len(h))
	}
	count := binary.LittleEndian.Uint32(h[concatCount:])
	// The length counts from the count field: 8 bytes more than the table.
	tableLen := uint64(binary.LittleEndian.Uint32(h[concatCount+4:]))
	if tableLen < concatTable-concatCount || tableLen > uint64(len(h)-concatCount) {
		return nil, fmt.Errorf("fatbin concatenated entry at offset %#x: table of %d bytes does not fit its %d-byte header", off, tableLen, len(h))
	}
	table := h[concatTable : concatCount+int(tableLen)]
	var entries []Entry
	p := 0
	for i := uint32(0); i < count; i++ {
		where := off + concatTable + p
		if len(table)-p < minEntryHdr {
			return entries, fmt.Errorf("fatbin concatenated entry at offset %#x: inner header %d of %d at %#x truncated", off, i+1, count, where)
		}
		e := table[p:]
		kind := Kind(binary.LittleEndian.Uint16(e[0:]))
		sm := binary.LittleEndian.Uint32(e[0x1C:])
		flags := binary.LittleEndian.Uint64(e[0x28:])
		size, ok := innerHeaderSize(e, flags)
		if !ok {
			return entries, fmt.Errorf("fatbin concatenated entry at offset %#x: inner header %d of %d at %#x: attribute block runs past the table", off, i+1, count, where)
		}
		if kind.Listed() && (sm == 0 || sm > maxSM) {
			return entries, fmt.Errorf("fatbin concatenated entry at offset %#x: inner header at %#x: implausible architecture sm_%d", off, where, sm)
		}
		entries = append(entries, Entry{Kind: kind, HeaderSize: size, SM: int(sm), Flags: flags, Offset: where, Nested: true})
		p += size
	}
	if p != len(table) {
		return entries, fmt.Errorf("fatbin concatenated entry at offset %#x: %d inner headers fill %d of the table's %d bytes", off, count, p, len(table))
	}
	return entries, nil
}

// innerHeaderSize is the size of an inner header starting e: 64 bytes, or
// with FlagCompat the end of its attribute block rounded up to 8. It
// reports false when that block does not fit in e.
func innerHeaderSize(e []byte, flags uint64) (int, bool) {
	if flags&FlagCompat == 0 {
		return minEntryHdr, true
	}
	end, ok := compatEnd(e)
	if !ok {
		return 0, false
	}
	return end, true
}

// compatEnd returns where the .nv.compat copy of a FlagCompat header h
// ends, rounded up to 8 bytes, and whether it lies within h after the
// offset and length fields.
func compatEnd(h []byte) (int, bool) {
	if len(h) < minEntryHdr+8 {
		return 0, false
	}
	at := uint64(binary.LittleEndian.Uint32(h[minEntryHdr:]))
	n := uint64(binary.LittleEndian.Uint32(h[minEntryHdr+4:]))
	// The block is a zero byte, then the attributes: n counts only them.
	end := (at + 1 + n + 7) &^ 7
	if at < minEntryHdr+8 || end > uint64(len(h)) {
		return 0, false
	}
	return int(end), true
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

// Anomalies describes, one line per kind of finding, what in the entries
// this package does not understand: entry kinds other than PTX, cubin and
// concatenated; flag bits outside KnownFlags; both suffix flags on one
// entry; header sizes no known layout explains. Each line counts the
// entries concerned. The entries are kept and read as documented on
// Kind.Listed; the lines are for a warning, so that nothing new in a
// fatbin goes by without a word. Nil when there is nothing to report.
func Anomalies(entries []Entry) []string {
	counts := map[string]int{}
	for _, e := range entries {
		where := e.Kind.String()
		if e.Kind.Listed() {
			where += " sm_" + strconv.Itoa(e.SM)
		}
		if !e.Kind.Known() {
			note := "not counted"
			if e.Kind.Listed() {
				note = "its architecture counted in cudaArchitectures only, as cuobjdump 12.5 lists it"
			}
			counts[fmt.Sprintf("entry kind %#x not understood (%s)", uint16(e.Kind), note)]++
		}
		if odd := e.Flags &^ KnownFlags; odd != 0 {
			counts[fmt.Sprintf("flag bits %#x not understood (%s)", odd, where)]++
		}
		if e.Specific() && e.Family() {
			counts[fmt.Sprintf("flags %#x (a) and %#x (f) both set (%s): named %s", FlagArchSpecific, FlagFamilySpecific, where, e.Arch())]++
		}
		if e.UnexplainedSize {
			counts[fmt.Sprintf("header size %d not understood (%s, flags %#x)", e.HeaderSize, e.Kind, e.Flags)]++
		}
	}
	if len(counts) == 0 {
		return nil
	}
	out := make([]string, 0, len(counts))
	for msg, n := range counts {
		out = append(out, fmt.Sprintf("%s: %d %s", msg, n, plural(n, "entry", "entries")))
	}
	sort.Strings(out)
	if len(out) > MaxAnomalies {
		rest := len(out) - MaxAnomalies
		out = append(out[:MaxAnomalies:MaxAnomalies], fmt.Sprintf("and %d more %s", rest, plural(rest, "finding", "findings")))
	}
	return out
}

// MaxAnomalies bounds the lines Anomalies returns: a hostile fatbin whose
// every entry carries other unknown bits would otherwise make as many
// lines as entries. The rest are counted in one last line.
const MaxAnomalies = 32

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SortArchs orders architecture names by SM number, then generic, family
// (f), specific (a): sm_90, sm_90a, sm_100, sm_100f, sm_100a
// (capability.Less, docs/compatibility.md).
func SortArchs(archs []string) { capability.Sort(archs) }
