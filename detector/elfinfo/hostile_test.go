package elfinfo_test

// Hostile ELF files and archives, built here: compressed sections that
// would decompress to gigabytes, string tables whose one long string
// thousands of entries name, long-name tables of thousands of members.
// Each must cost memory in proportion to its size.

import (
	"bytes"
	"debug/elf"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// allocated runs f and returns the bytes it allocated on the heap.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCompressedSectionsRead: a file whose .dynstr, .dynamic, .shstrtab
// and .nv_fatbin are compressed (zlib or zstd, 32 or 64-bit) reads as the
// same file stored plainly.
func TestCompressedSectionsRead(t *testing.T) {
	fat := testfatbin.Container(img{SM: 80}, img{SM: 90, PTX: true})
	for _, class := range []elf.Class{elf.ELFCLASS64, elf.ELFCLASS32} {
		for _, typ := range []elf.CompressionType{elf.COMPRESS_ZLIB, elf.COMPRESS_ZSTD} {
			t.Run(fmt.Sprint(class, typ), func(t *testing.T) {
				spec := testelf.Spec{Class: class, Soname: "libx.so.1", Needed: []string{"liby.so.2", "libz.so.3"},
					Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}}}
				plain, err := elfinfo.Read(testelf.Build(spec))
				if err != nil {
					t.Fatal(err)
				}
				spec.Compress = map[string]testelf.Compressed{".dynstr": {Type: typ}, ".dynamic": {Type: typ}, ".shstrtab": {Type: typ}, ".nv_fatbin": {Type: typ}}
				data := testelf.Build(spec)
				f, err := elf.NewFile(bytes.NewReader(data))
				if err != nil || f.Section(".dynstr").Flags&elf.SHF_COMPRESSED == 0 {
					t.Fatalf("the builder did not compress .dynstr: %v", err)
				}
				got, err := elfinfo.Read(data)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(plain, got); diff != "" {
					t.Errorf("compressed file reads differently (-plain +compressed):\n%s", diff)
				}
				if len(got.Images) != 2 || got.Soname != "libx.so.1" {
					t.Errorf("got %+v", got)
				}
			})
		}
	}
}

// TestCompressionBombs: each section Read decompresses claims, or its
// zstd frame asks for, more than the file may inflate to. debug/elf
// would decompress all of it (the name table inside NewFile, .dynamic at
// each DynValue); Read refuses, naming the section, and allocates next
// to nothing.
func TestCompressionBombs(t *testing.T) {
	const huge = 1 << 30
	zlibBomb := compressZeros // n zero bytes in about n/1000
	tests := []struct {
		name, section string
		c             testelf.Compressed
		want          string
	}{
		{"zstd RLE .dynstr", ".dynstr", testelf.Compressed{Type: elf.COMPRESS_ZSTD, Size: huge, Stream: testelf.ZstdRLE('a', huge, 0)},
			"section .dynstr: compressed (COMPRESS_ZSTD) to be 1073741824 bytes once decompressed: refused"},
		{"zlib .dynamic", ".dynamic", testelf.Compressed{Type: elf.COMPRESS_ZLIB, Size: 64 << 20, Stream: zlibBomb(64 << 20)},
			"section .dynamic: compressed (COMPRESS_ZLIB) to be 67108864 bytes"},
		{"zstd .shstrtab", ".shstrtab", testelf.Compressed{Type: elf.COMPRESS_ZSTD, Size: huge, Stream: testelf.ZstdRLE(0, huge, 0)},
			"section name table: compressed (COMPRESS_ZSTD) to be 1073741824 bytes"},
		{"zstd window", ".dynstr", testelf.Compressed{Type: elf.COMPRESS_ZSTD, Size: 100, Stream: testelf.ZstdRLE('a', 100, 8<<20)},
			"section .dynstr: zstd frame asks for a 8388608-byte window: refused"},
		{"zstd .nv_fatbin", ".nv_fatbin", testelf.Compressed{Type: elf.COMPRESS_ZSTD, Size: huge, Stream: testelf.ZstdRLE(0, huge, 0)},
			"section .nv_fatbin: compressed (COMPRESS_ZSTD) to be 1073741824 bytes"},
	}
	for _, tc := range tests {
		for _, order := range []elf.Data{elf.ELFDATA2LSB, elf.ELFDATA2MSB} {
			t.Run(fmt.Sprint(tc.name, order), func(t *testing.T) {
				spec := testelf.Spec{Data: order, Soname: "libx.so.1", Needed: []string{"liby.so"},
					Sections: []testelf.Section{{Name: ".nv_fatbin", Data: testfatbin.Container(img{SM: 80})}},
					Compress: map[string]testelf.Compressed{tc.section: tc.c}}
				data := testelf.Build(spec)
				var err error
				alloc := allocated(func() { _, err = elfinfo.Read(data) })
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%d-byte file: err = %v, want %q", len(data), err, tc.want)
				}
				if max := uint64(64*len(data) + 1<<20); alloc > max {
					t.Errorf("%d-byte file: Read allocated %d bytes, want under %d", len(data), alloc, max)
				}
			})
		}
	}
}

func compressZeros(n int) []byte {
	c := testelf.Build(testelf.Spec{NoDynamic: true, Sections: []testelf.Section{{Name: "z", Data: make([]byte, n)}},
		Compress: map[string]testelf.Compressed{"z": {Type: elf.COMPRESS_ZLIB}}})
	f, err := elf.NewFile(bytes.NewReader(c))
	if err != nil {
		panic(err)
	}
	s := f.Section("z")
	return c[s.Offset+24 : s.Offset+s.FileSize]
}

// TestCompressedWithinBound: a compressed .dynstr that inflates within
// the bound (MaxInflateRatio times the file, at least MinInflate) reads;
// one past it is refused.
func TestCompressedWithinBound(t *testing.T) {
	for _, pad := range []int{3 << 10, 1 << 20} {
		spec := testelf.Spec{Soname: "libx.so.1", DynStr: make([]byte, pad), Compress: map[string]testelf.Compressed{".dynstr": {Type: elf.COMPRESS_ZLIB}}}
		data := testelf.Build(spec)
		info, err := elfinfo.Read(data)
		if limit := max(elfinfo.MinInflate, elfinfo.MaxInflateRatio*len(data)); pad+11 > limit {
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("%d-byte file, %d-byte table: err = %v, want a refusal", len(data), pad+11, err)
			}
			continue
		}
		if err != nil || info.Soname != "libx.so.1" {
			t.Errorf("%d-byte file, %d-byte table: %+v, %v", len(data), pad+11, info, err)
		}
	}
}

// TestDynamicStringAmplification: one 4000-byte string named by 5000
// DT_NEEDED entries (at offsets 1, 2, 3...) was 5000 copies of up to 4 KB:
// 10 MB from an 84 KB file (a 1 MB table made it gigabytes). What is kept
// is now bounded by the string table's size, and the errors are a few
// lines. (Transient garbage, an error value per bad entry, stays linear.)
func TestDynamicStringAmplification(t *testing.T) {
	const strLen, entries = 4000, 5000
	long := append(bytes.Repeat([]byte("a"), strLen), 0)
	var dyn [][2]uint64
	for i := 0; i < entries; i++ {
		dyn = append(dyn, [2]uint64{uint64(elf.DT_NEEDED), uint64(1 + i)})
	}
	data := testelf.Build(testelf.Spec{DynStr: long, DynamicEntries: dyn})
	var info *elfinfo.Info
	var err error
	alloc := allocated(func() { info, err = elfinfo.Read(data) })
	total := 0
	for _, n := range info.Needed {
		total += len(n)
	}
	if total > len(long)+1 {
		t.Errorf("kept %d bytes of names from a %d-byte string table", total, len(long)+1)
	}
	if err == nil || !strings.Contains(err.Error(), "point into each other") || !strings.Contains(err.Error(), "more errors") {
		t.Errorf("err = %v", err)
	}
	if len(err.Error()) > 4096 {
		t.Errorf("the error is %d bytes long", len(err.Error()))
	}
	if max := uint64(8 * len(data)); alloc > max {
		t.Errorf("%d-byte file: Read allocated %d bytes, want under %d", len(data), alloc, max)
	}
}

// TestDynamicCaps: a name longer than MaxNameLen is refused, and past
// MaxNeeded entries the rest are counted.
func TestDynamicCaps(t *testing.T) {
	long := strings.Repeat("x", elfinfo.MaxNameLen+1)
	_, err := elfinfo.Read(testelf.Build(testelf.Spec{Soname: long}))
	if err == nil || !strings.Contains(err.Error(), "DT_SONAME: string at offset") || !strings.Contains(err.Error(), "longer than 4096 bytes") {
		t.Errorf("long soname: err = %v", err)
	}
	var needed []string
	for i := 0; i < elfinfo.MaxNeeded+10; i++ {
		needed = append(needed, "lib"+strconv.Itoa(i)+".so")
	}
	info, err := elfinfo.Read(testelf.Build(testelf.Spec{Needed: needed}))
	if err == nil || !strings.Contains(err.Error(), "1034 DT_NEEDED entries, only the first 1024 kept") {
		t.Errorf("many DT_NEEDED: err = %v", err)
	}
	if info == nil || len(info.Needed) != elfinfo.MaxNeeded || info.Needed[0] != "lib0.so" {
		t.Errorf("want the first %d kept", elfinfo.MaxNeeded)
	}
	// The loader stops at DT_NULL; so does Read.
	info, err = elfinfo.Read(testelf.Build(testelf.Spec{Needed: []string{"liba.so"}, DynStr: []byte("libb.so\x00"),
		DynamicEntries: [][2]uint64{{uint64(elf.DT_NULL), 0}, {uint64(elf.DT_NEEDED), 9}}}))
	if err != nil || len(info.Needed) != 1 {
		t.Errorf("entries after DT_NULL: %+v, %v", info, err)
	}
}

// TestLongNameTableLinear: 20000 members all naming offset 0 of a 200 KB
// long-name table without a terminator each copied the rest of the
// table: 4 GB. Their names now share the table.
func TestLongNameTableLinear(t *testing.T) {
	const members, table = 20000, 200_000
	var buf bytes.Buffer
	buf.WriteString(elfinfo.ArMagic)
	header := func(name string, size int) {
		fmt.Fprintf(&buf, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", size)
	}
	header("//", table)
	buf.Write(bytes.Repeat([]byte("n"), table))
	for i := 0; i < members; i++ {
		header("/"+strconv.Itoa(i%3*(table/2-1)), 0)
	}
	data := buf.Bytes()
	var got []elfinfo.Member
	var err error
	alloc := allocated(func() { got, err = elfinfo.Members(data) })
	if err != nil || len(got) != members {
		t.Fatalf("%d members, %v", len(got), err)
	}
	if len(got[0].Name) != table || len(got[1].Name) != table/2+1 {
		t.Errorf("name lengths %d, %d", len(got[0].Name), len(got[1].Name))
	}
	if max := uint64(4 * len(data)); alloc > max {
		t.Errorf("%d-byte archive: Members allocated %d bytes, want under %d", len(data), alloc, max)
	}
}

// TestLongNameTerminators: names end at "/\n" or "\n", as binutils reads
// them; a member may name any offset of the table.
func TestLongNameTerminators(t *testing.T) {
	table := "a_very_long_object_name_indeed.o/\nsecond_name_without_slash.o\nlast_one_unterminated.o"
	var buf bytes.Buffer
	buf.WriteString(elfinfo.ArMagic)
	add := func(name, body string) {
		fmt.Fprintf(&buf, "%-16s%-12s%-6s%-6s%-8s%-10d`\n%s", name, "0", "0", "0", "644", len(body), body)
		if len(body)%2 == 1 {
			buf.WriteByte('\n')
		}
	}
	add("//", table)
	for _, off := range []int{0, 34, 62, 2} {
		add("/"+strconv.Itoa(off), "x")
	}
	got, err := elfinfo.Members(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	want := []string{"a_very_long_object_name_indeed.o", "second_name_without_slash.o", "last_one_unterminated.o", "very_long_object_name_indeed.o"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}
