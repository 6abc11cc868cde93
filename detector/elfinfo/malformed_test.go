package elfinfo_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// section returns the file range of the named section of an ELF file.
func section(t *testing.T, data []byte, name string) (off, size int) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no section %s", name)
	}
	return int(s.Offset), int(s.Size)
}

// TestMalformedDynamic: debug/elf drops a DT_NEEDED whose string offset is
// out of bounds, or whose string is not terminated, without a word; Read
// must say so (detect records it as the library's error).
func TestMalformedDynamic(t *testing.T) {
	good := testelf.Build(testelf.Spec{Soname: "libx.so.1", Needed: []string{"liby.so", "libz.so"}})
	info, err := elfinfo.Read(good)
	if err != nil || info.Soname != "libx.so.1" || len(info.Needed) != 2 {
		t.Fatalf("well-formed: %+v, %v", info, err)
	}

	// The first DT_NEEDED points far past .dynstr.
	bad := bytes.Clone(good)
	pointFirstNeededAt(t, bad, 1<<40)
	info, err = elfinfo.Read(bad)
	if err == nil || !strings.Contains(err.Error(), "DT_NEEDED") || !strings.Contains(err.Error(), "outside the string table") {
		t.Errorf("out-of-bounds DT_NEEDED: err = %v", err)
	}
	if info == nil || len(info.Needed) != 1 || info.Soname != "libx.so.1" {
		t.Errorf("the good strings should be kept: %+v", info)
	}

	// .dynstr loses its terminators: the last string runs off its end.
	bad = bytes.Clone(good)
	off, size := section(t, bad, ".dynstr")
	for p := off + size - 1; p > off && bad[p] == 0; p-- {
		bad[p] = 'x'
	}
	if _, err := elfinfo.Read(bad); err == nil || !strings.Contains(err.Error(), "not terminated") {
		t.Errorf("unterminated .dynstr: err = %v", err)
	}
}

// pointFirstNeededAt sets the string offset of the first DT_NEEDED of
// the ELF64 file data (little-endian) to val.
func pointFirstNeededAt(t *testing.T, data []byte, val uint64) {
	t.Helper()
	off, size := section(t, data, ".dynamic")
	for p := off; p+16 <= off+size; p += 16 {
		if elf.DynTag(binary.LittleEndian.Uint64(data[p:])) == elf.DT_NEEDED {
			binary.LittleEndian.PutUint64(data[p+8:], val)
			return
		}
	}
	t.Fatal("no DT_NEEDED to patch")
}
