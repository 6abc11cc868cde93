package elfinfo

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds on the provenance facts (version definitions, .comment strings)
// one file can make Read keep. Real libraries stay far below each: Qt 6
// Core defines about 10 versions, libstdc++ about 150, and a .comment
// section holds one to five compiler strings of under 100 bytes.
const (
	// MaxVersionDefs bounds the .gnu.version_d entries walked (and so
	// the names kept).
	MaxVersionDefs = 1024
	// MaxCommentBytes is how much of a .comment section is read: a
	// hostile section of any size costs no more.
	MaxCommentBytes = 64 << 10
	// MaxComments bounds the distinct .comment strings kept, and
	// MaxCommentLen each one's length (longer ones are cut).
	MaxComments   = 16
	MaxCommentLen = 256
)

// Sizes of Elf_Verdef and Elf_Verdaux, the same for 32 and 64-bit files.
const (
	verdefSize  = 20
	verdauxSize = 8
	verFlagBase = 1 // VER_FLG_BASE: the entry names the file itself
)

// readVersionDefs reads the names a shared library defines as symbol
// versions (.gnu.version_d: Qt_6, OPENSSL_3.0.0, GLIBCXX_3.4.29), in file
// order without repeats, skipping the base entry (the file's own name).
// Entries are walked through vd_next, at most MaxVersionDefs of them; an
// entry or name out of bounds is an error and ends the walk. The bytes of
// names kept are bounded by the string table's size, as in readDynamic.
func (r *reader) readVersionDefs(info *Info) error {
	sec := r.f.SectionByType(elf.SHT_GNU_VERDEF)
	if sec == nil {
		return nil
	}
	str, body, err := r.sectionWithStrings(sec, "version definitions")
	if err != nil {
		return err
	}
	v := verdefs{bo: r.f.ByteOrder, body: body, str: str, budget: len(str), seen: map[string]bool{}}
	off := 0
	for range MaxVersionDefs {
		next, err := v.entry(info, off)
		if err != nil {
			return fmt.Errorf("version definitions: %w", err)
		}
		if next == 0 {
			return nil
		}
		off += next
	}
	return fmt.Errorf("version definitions: more than %d entries, only those kept", MaxVersionDefs)
}

// verdefs walks a .gnu.version_d section, body, whose names are in str.
type verdefs struct {
	bo        binary.ByteOrder
	body, str []byte
	budget    int // the bytes of names still to keep, in all
	seen      map[string]bool
}

// entry keeps the name of the entry at off unless it is the base entry
// or a repeat, and returns vd_next: 0 for the last entry.
func (v *verdefs) entry(info *Info, off int) (next int, err error) {
	if off+verdefSize > len(v.body) {
		return 0, fmt.Errorf("entry at offset %d runs past the section (%d bytes)", off, len(v.body))
	}
	flags := v.bo.Uint16(v.body[off+2:])
	aux, vdNext := v.bo.Uint32(v.body[off+12:]), v.bo.Uint32(v.body[off+16:])
	if flags&verFlagBase == 0 {
		s, err := v.name(off, aux)
		if err != nil {
			return 0, err
		}
		if !v.seen[s] {
			v.seen[s] = true
			info.VersionDefs = append(info.VersionDefs, s)
		}
	}
	if uint64(vdNext) > uint64(len(v.body)-off) {
		return 0, fmt.Errorf("entry at offset %d: next entry at +%d is past the section", off, vdNext)
	}
	return int(vdNext), nil
}

// name is the version name of the entry at off, whose auxiliary entry
// is at +aux.
func (v *verdefs) name(off int, aux uint32) (string, error) {
	if uint64(aux) > uint64(len(v.body)-off-verdauxSize) {
		return "", fmt.Errorf("entry at offset %d: auxiliary entry at +%d runs past the section", off, aux)
	}
	name := v.bo.Uint32(v.body[off+int(aux):])
	b, bad := dynString(v.str, uint64(name))
	if bad == strOK && len(b) > v.budget {
		bad = strOverlap
	}
	if bad != strOK {
		return "", fmt.Errorf("entry at offset %d: %w", off, bad.err(uint64(name), len(v.str)))
	}
	v.budget -= len(b)
	return string(b), nil
}

// readComment keeps the distinct strings of the .comment section (the
// compilers and linkers that built the file: "GCC: (GNU) 11.2.0"), in
// file order. Only its first MaxCommentBytes are read, at most MaxComments
// strings kept, each cut to MaxCommentLen bytes of valid UTF-8. A
// compressed .comment is left unread: its strings are a hint, not worth
// decompressing for.
func (r *reader) readComment(info *Info) {
	sec := r.f.Section(".comment")
	if sec == nil || sec.Type == elf.SHT_NOBITS || sec.Flags&elf.SHF_COMPRESSED != 0 {
		return
	}
	if sec.Offset > uint64(len(r.data)) || sec.FileSize > uint64(len(r.data))-sec.Offset {
		return
	}
	body := r.data[sec.Offset : sec.Offset+min(sec.FileSize, MaxCommentBytes)]
	for len(body) > 0 && len(info.Comments) < MaxComments {
		s := body
		if i := bytes.IndexByte(body, 0); i >= 0 {
			s, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		c := commentString(s)
		if c != "" && !slices.Contains(info.Comments, c) {
			info.Comments = append(info.Comments, c)
		}
	}
}

// commentString is one .comment string trimmed, cut to MaxCommentLen
// bytes and made valid UTF-8.
func commentString(b []byte) string {
	b = b[:min(len(b), MaxCommentLen)]
	s := strings.ToValidUTF8(string(b), string(utf8.RuneError))
	return strings.TrimSpace(s)
}
