package dlopen

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// The ELF dlopen metadata note (systemd's ELF_DLOPEN_METADATA, read by
// Nixpkgs' autoPatchelf too): owner "FDO", this type, and a NUL-terminated
// JSON descriptor, a list of objects (an older text of the specification:
// one object) with "soname" (a list of names; the older text: one string)
// and optional "feature", "description" and "priority".
const (
	noteOwner = "FDO\x00"
	noteType  = 0x407c0c0a
)

// noteAlign is the alignment of a note section's name and descriptor:
// 4 bytes, 8 when the section says so (as GNU property notes are laid
// out).
func noteAlign(sec *elf.Section) int {
	if sec.Addralign == 8 {
		return 8
	}
	return 4
}

// noteEntry is one object of the note's JSON.
type noteEntry struct {
	Soname      json.RawMessage `json:"soname"`
	Feature     string          `json:"feature"`
	Description string          `json:"description"`
	Priority    string          `json:"priority"`
}

// scanNotes walks the notes of one note section; every size is checked
// against what is left of the section before it is used, so a note
// claiming a gigabyte is an error, never an allocation. Other owners and
// types are skipped. base is the section's file offset.
func (c *collector) scanNotes(section string, body []byte, base uint64, align int, bo binary.ByteOrder) error {
	for off := 0; off < len(body); {
		if len(body)-off < 12 {
			return fmt.Errorf("note at offset %d: %d bytes left, fewer than a note header's 12", base+uint64(off), len(body)-off)
		}
		namesz, descsz, typ := uint64(bo.Uint32(body[off:])), uint64(bo.Uint32(body[off+4:])), bo.Uint32(body[off+8:])
		p := uint64(off + 12)
		nameEnd := p + namesz
		descStart := alignUp(nameEnd, uint64(align))
		if nameEnd > uint64(len(body)) || descStart > uint64(len(body)) {
			return fmt.Errorf("note at offset %d: name of %d bytes runs past the section (%d bytes left)", base+uint64(off), namesz, uint64(len(body))-p)
		}
		descEnd := descStart + descsz
		if descEnd > uint64(len(body)) {
			return fmt.Errorf("note at offset %d: descriptor of %d bytes runs past the section (%d bytes left)", base+uint64(off), descsz, uint64(len(body))-descStart)
		}
		next := alignUp(descEnd, uint64(align))
		if next > uint64(len(body)) {
			next = uint64(len(body)) // the last note's padding may be cut
		}
		if string(body[p:nameEnd]) == noteOwner && typ == noteType {
			if err := c.readNote(section, body[descStart:descEnd], base+uint64(off)); err != nil {
				return fmt.Errorf("dlopen note at offset %d: %w", base+uint64(off), err)
			}
		}
		off = int(next)
	}
	return nil
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// readNote reads one FDO dlopen note's JSON: bounded in size and depth,
// then decoded. An entry without a usable soname is an error; the
// entries before it are kept.
func (c *collector) readNote(section string, desc []byte, offset uint64) error {
	desc = bytes.TrimRight(desc, "\x00")
	if len(desc) > MaxNoteJSON {
		return fmt.Errorf("JSON of %d bytes, more than %d", len(desc), MaxNoteJSON)
	}
	if err := jsoncheck.CheckDepth(desc, MaxNoteDepth); err != nil {
		return err
	}
	var entries []json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(desc, " \t\r\n"), []byte("{")) {
		entries = []json.RawMessage{desc}
	} else if err := json.Unmarshal(desc, &entries); err != nil {
		return fmt.Errorf("not a list of objects: %w", err)
	}
	for i, raw := range entries {
		var e noteEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		var names []string
		if err := json.Unmarshal(e.Soname, &names); err != nil {
			var one string
			if err := json.Unmarshal(e.Soname, &one); err != nil {
				return fmt.Errorf("entry %d: soname is neither a string nor a list of strings", i)
			}
			names = []string{one}
		}
		for _, name := range names {
			if name == "" {
				return fmt.Errorf("entry %d: an empty soname", i)
			}
			b := []byte(keep([]byte(name)))
			l := c.add(b, Declared, func() (string, features.LoadEvidence) {
				return "", features.LoadEvidence{Kind: KindNote, Section: section, Offset: offset, String: keep(raw)}
			})
			if l != nil && l.Feature == "" && l.Description == "" && l.Priority == "" {
				l.Feature, l.Description, l.Priority = keep([]byte(e.Feature)), keep([]byte(e.Description)), keep([]byte(e.Priority))
			}
		}
	}
	return nil
}
