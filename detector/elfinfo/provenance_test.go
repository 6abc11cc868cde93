package elfinfo_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// TestProvenance: version definitions (without the base entry, repeats
// dropped) and .comment strings (trimmed, repeats dropped) of 32 and
// 64-bit files of both byte orders.
func TestProvenance(t *testing.T) {
	for _, class := range []elf.Class{elf.ELFCLASS64, elf.ELFCLASS32} {
		for _, data := range []elf.Data{elf.ELFDATA2LSB, elf.ELFDATA2MSB} {
			spec := testelf.Spec{Class: class, Data: data, Soname: "libQt6Core.so.6", VersionDefs: []string{"Qt_6", "Qt_6_PRIVATE_API", "Qt_6"},
				Sections: []testelf.Section{{Name: ".comment", Data: []byte("GCC: (GNU) 10.3.1\x00 GCC: (GNU) 10.3.1 \x00\x00clang version 14\x00")}}}
			info, err := elfinfo.Read(testelf.Build(spec))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"Qt_6", "Qt_6_PRIVATE_API"}, info.VersionDefs); diff != "" {
				t.Errorf("%v %v VersionDefs (-want +got):\n%s", class, data, diff)
			}
			if diff := cmp.Diff([]string{"GCC: (GNU) 10.3.1", "clang version 14"}, info.Comments); diff != "" {
				t.Errorf("%v %v Comments (-want +got):\n%s", class, data, diff)
			}
		}
	}
}

// verdefEntry is one raw Elf_Verdef + Elf_Verdaux, little-endian.
func verdefEntry(flags uint16, aux, next, name uint32) []byte {
	var b bytes.Buffer
	for _, v := range []any{uint16(1), flags, uint16(1), uint16(1), uint32(0), aux, next, name, uint32(0)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// TestMalformedVersionDefs: each bad .gnu.version_d is an error naming
// the entry; the names read before it are kept and the rest of the file
// (soname) is still read.
func TestMalformedVersionDefs(t *testing.T) {
	// .dynstr of the spec: "\0libx.so.1\0V1\0" (V1 at 11).
	good := verdefEntry(0, 20, 28, 11)
	loop := verdefEntry(0, 20, 0, 11)[:20] // cut: no room for its aux entry
	tests := []struct {
		name string
		raw  []byte
		want string
		defs []string
	}{
		{"truncated entry", good[:10], "entry at offset 0 runs past the section", nil},
		{"aux outside", verdefEntry(0, 4000, 0, 11), "auxiliary entry at +4000 runs past", nil},
		{"name outside", verdefEntry(0, 20, 0, 999), "string offset 999 outside the string table", nil},
		{"next outside", append(append([]byte{}, good[:16]...), append(binary.LittleEndian.AppendUint32(nil, 9999), good[20:]...)...), "next entry at +9999 is past the section", []string{"V1"}},
		{"aux in the next entry's place", append(good, loop...), "entry at offset 28: auxiliary entry at +20 runs past", []string{"V1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := testelf.Build(testelf.Spec{Soname: "libx.so.1", DynStr: []byte("V1\x00"), VerDefRaw: tt.raw, VerDefCount: 1})
			info, err := elfinfo.Read(data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if info == nil || info.Soname != "libx.so.1" {
				t.Fatalf("info = %+v: the soname is lost", info)
			}
			if diff := cmp.Diff(tt.defs, info.VersionDefs); diff != "" {
				t.Errorf("VersionDefs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVersionDefsCapped: a chain of MaxVersionDefs+1 entries (base
// entries, 20 bytes apart) stops at the cap with an error.
func TestVersionDefsCapped(t *testing.T) {
	var chain []byte
	for range elfinfo.MaxVersionDefs + 1 {
		chain = append(chain, verdefEntry(1, 20, 20, 1)[:20]...)
	}
	info, err := elfinfo.Read(testelf.Build(testelf.Spec{Soname: "libx.so.1", VerDefRaw: chain, VerDefCount: 1}))
	if err == nil || !strings.Contains(err.Error(), "more than 1024 entries") {
		t.Fatalf("err = %v, want the entry cap", err)
	}
	if info.Soname != "libx.so.1" {
		t.Errorf("soname lost: %+v", info)
	}
}

// TestHostileComment: a 32 MB .comment of a million distinct strings
// costs what its first MaxCommentBytes do: at most MaxComments strings of
// at most MaxCommentLen bytes are kept, and Read allocates well under a
// megabyte for the section (the bound does not grow with its size).
func TestHostileComment(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 32<<20; i++ {
		fmt.Fprintf(&b, "%08d%s\x00", i, strings.Repeat("x", 300))
	}
	data := testelf.Build(testelf.Spec{Soname: "libx.so.1", Sections: []testelf.Section{{Name: ".comment", Data: b.Bytes()}}})
	b = bytes.Buffer{}
	var info *elfinfo.Info
	alloc := allocated(func() {
		var err error
		info, err = elfinfo.Read(data)
		if err != nil {
			t.Error(err)
		}
	})
	if len(info.Comments) != elfinfo.MaxComments {
		t.Errorf("%d comments kept, want %d", len(info.Comments), elfinfo.MaxComments)
	}
	for _, c := range info.Comments {
		if len(c) > elfinfo.MaxCommentLen {
			t.Errorf("comment of %d bytes kept", len(c))
		}
	}
	if alloc > 1<<20 {
		t.Errorf("Read allocated %d bytes for a %d-byte file", alloc, len(data))
	}
}
