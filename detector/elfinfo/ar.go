package elfinfo

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ArMagic opens a Unix static archive (*.a).
const ArMagic = "!<arch>\n"

// IsArchive reports whether data is a static archive.
func IsArchive(data []byte) bool { return bytes.HasPrefix(data, []byte(ArMagic)) }

// Member is one object of a static archive.
type Member struct {
	Name string
	Data []byte
}

const arHeaderSize = 60

// Members splits a static archive (GNU or BSD/System V format) into its
// members, without copying. Symbol tables ("/", "/SYM64/", "__.SYMDEF")
// and the GNU long-name table ("//") are consumed, not returned. Thin
// archives hold no member data and are refused.
func Members(data []byte) ([]Member, error) {
	if !IsArchive(data) {
		if bytes.HasPrefix(data, []byte("!<thin>\n")) {
			return nil, fmt.Errorf("thin archive: members are stored elsewhere")
		}
		return nil, fmt.Errorf("not a static archive")
	}
	var members []Member
	var longNames *longNameTable
	off := len(ArMagic)
	for off < len(data) {
		if len(data)-off < arHeaderSize {
			if isZeroOrNewline(data[off:]) {
				break
			}
			return members, fmt.Errorf("archive member header at offset %d: truncated", off)
		}
		name, body, err := memberAt(data, off)
		if err != nil {
			return members, err
		}
		m, ok, err := member(name, body, &longNames)
		if err != nil {
			return members, fmt.Errorf("archive member at offset %d: %w", off, err)
		}
		if ok {
			members = append(members, m)
		}
		off += arHeaderSize + len(body)
		if off%2 == 1 {
			off++ // members are 2-aligned
		}
	}
	return members, nil
}

// memberAt reads the member header at off: the member's raw name and its
// data.
func memberAt(data []byte, off int) (name string, body []byte, err error) {
	hdr := data[off : off+arHeaderSize]
	if string(hdr[58:60]) != "`\n" {
		return "", nil, fmt.Errorf("archive member header at offset %d: bad terminator", off)
	}
	size, err := strconv.ParseUint(strings.TrimSpace(string(hdr[48:58])), 10, 63)
	if err != nil {
		return "", nil, fmt.Errorf("archive member header at offset %d: bad size: %w", off, err)
	}
	start := off + arHeaderSize
	if size > uint64(len(data)-start) {
		return "", nil, fmt.Errorf("archive member at offset %d: size %d runs past the end", off, size)
	}
	return strings.TrimRight(string(hdr[0:16]), " "), data[start : start+int(size)], nil
}

// member is the object a member with this raw name holds; ok is false
// for the symbol tables and the long-name table, which is kept in
// longNames for the members after it.
func member(name string, body []byte, longNames **longNameTable) (m Member, ok bool, err error) {
	switch {
	case name == "/" || name == "/SYM64/" || strings.HasPrefix(name, "__.SYMDEF"):
		return Member{}, false, nil // symbol table
	case name == "//":
		*longNames = newLongNameTable(body)
		return Member{}, false, nil
	case strings.HasPrefix(name, "#1/"): // BSD: name stored before the data
		n, err := strconv.Atoi(name[3:])
		if err != nil || n < 0 || n > len(body) {
			return Member{}, false, fmt.Errorf("bad BSD name length %q", name)
		}
		return Member{Name: strings.TrimRight(string(body[:n]), "\x00"), Data: body[n:]}, true, nil
	case strings.HasPrefix(name, "/"): // GNU: offset into the long-name table
		n, err := strconv.Atoi(name[1:])
		long, ok := (*longNames).name(n)
		if err != nil || !ok {
			return Member{}, false, fmt.Errorf("bad long-name reference %q", name)
		}
		return Member{Name: long, Data: body}, true, nil
	}
	return Member{Name: strings.TrimSuffix(name, "/"), Data: body}, true, nil
}

// longNameTable is the GNU long-name table ("//"): names, each ended by
// "/\n" (or "\n"), that members name by their offset. It is converted to
// a string once and every member's name is a substring of it, and the
// name ends are found by one pass over the table: reading the names of
// all members costs time and memory linear in the archive, even when
// thousands of members point at one unterminated name.
type longNameTable struct {
	text string
	ends []int // offsets of the '\n' bytes, ascending
}

func newLongNameTable(body []byte) *longNameTable {
	t := &longNameTable{text: string(body)}
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '\n')
		if j < 0 {
			break
		}
		t.ends = append(t.ends, i+j)
		i += j + 1
	}
	return t
}

// name is the name at offset off: up to the next newline, without the
// '/' before it (binutils' reading), or to the end of the table.
func (t *longNameTable) name(off int) (string, bool) {
	if t == nil || off < 0 || off >= len(t.text) {
		return "", false
	}
	end := len(t.text)
	if i := sort.SearchInts(t.ends, off); i < len(t.ends) {
		end = t.ends[i]
		if end > off && t.text[end-1] == '/' {
			end--
		}
	}
	return t.text[off:end], true
}

func isZeroOrNewline(b []byte) bool {
	for _, c := range b {
		if c != 0 && c != '\n' {
			return false
		}
	}
	return true
}
