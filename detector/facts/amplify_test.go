package facts_test

// Output amplifiers, built here: inputs whose detect result would grow
// faster than their content. Each is bounded (docs/detection.md,
// "Bounds").

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// neededHeavyLib is a shared library of about 1 MB: 1000 DT_NEEDED
// entries of 1000 bytes each, every one repeated in its record.
func neededHeavyLib() []byte {
	var needed []string
	for i := 0; i < 1000; i++ {
		needed = append(needed, fmt.Sprintf("lib%04d%s.so", i, strings.Repeat("n", 990)))
	}
	return testelf.Build(testelf.Spec{Soname: "libheavy.so.1", Needed: needed})
}

// TestHardLinksBounded: every hard link to a library is a record of its
// own, repeating its 1 MB of needed libraries; 40 links made 40 MB of
// JSON from 1 MB of content (a tar stores a link as a 512-byte header).
// A few links are fine and share one reading of the file; past the
// detail budget Detect refuses, naming where.
func TestHardLinksBounded(t *testing.T) {
	lib := neededHeavyLib()
	for _, links := range []int{3, 40} {
		root := t.TempDir()
		dir := filepath.Join(root, "lib")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		first := filepath.Join(dir, "libheavy.so.1")
		if err := os.WriteFile(first, lib, 0o644); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < links; i++ {
			if err := os.Link(first, filepath.Join(dir, fmt.Sprintf("libheavy%03d.so", i))); err != nil {
				t.Fatal(err)
			}
		}
		f, err := facts.Detect(root)
		if links == 3 {
			if err != nil {
				t.Fatalf("3 links: %v", err)
			}
			for _, l := range f.Libraries {
				if len(l.Needed) != 1000 || l.Soname != "libheavy.so.1" {
					t.Errorf("%s: %d needed, soname %q", l.Path, len(l.Needed), l.Soname)
				}
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "refused: the library records") || !strings.Contains(err.Error(), "first passed at lib/libheavy0") {
			t.Errorf("%d links: err = %v", links, err)
		}
	}
}

// TestSymlinkedLibDirsBounded: each symlink in lib/ to a directory is a
// lib/ group of its own, repeating the needed libraries of what it holds.
func TestSymlinkedLibDirsBounded(t *testing.T) {
	entries := []E{B("lib/real/libheavy.so", neededHeavyLib())}
	for i := 0; i < 40; i++ {
		entries = append(entries, E{Name: fmt.Sprintf("lib/v%02d", i), Kind: testarchive.Symlink, Link: "real", Mode: 0o777})
	}
	root := t.TempDir()
	if err := testarchive.WriteTree(root, entries); err != nil {
		t.Fatal(err)
	}
	_, err := facts.Detect(root)
	if err == nil || !strings.Contains(err.Error(), "refused: the library records and lib/ groups") || !strings.Contains(err.Error(), "first passed at lib/v") {
		t.Errorf("err = %v", err)
	}
}

// TestFatbinGroupsCapped: a fatbin of 2000 tiny entries, each with other
// flags, was 2000 fatbinEntries groups; the first MaxFatbinGroups are
// listed, the rest counted.
func TestFatbinGroupsCapped(t *testing.T) {
	var imgs []img
	for i := 0; i < 2000; i++ {
		imgs = append(imgs, img{SM: 80, ExtraFlags: uint64(i) << 32})
	}
	lib := testelf.Build(testelf.Spec{Soname: "libfat.so", Sections: []testelf.Section{{Name: ".nv_fatbin", Data: testfatbin.Container(imgs...)}}})
	got := detectEntries(t, []E{B("lib/libfat.so", lib)})
	l := got.Libraries[0]
	if len(l.FatbinEntries) != facts.MaxFatbinGroups || l.FatbinEntriesOmitted != 2000-facts.MaxFatbinGroups {
		t.Errorf("%d groups, %d omitted; want %d and %d", len(l.FatbinEntries), l.FatbinEntriesOmitted, facts.MaxFatbinGroups, 2000-facts.MaxFatbinGroups)
	}
	if l.FatbinEntries[0].Flags > l.FatbinEntries[1].Flags || fmt.Sprint(l.CudaArchitectures) != "[sm_80]" {
		t.Errorf("groups out of order or archs wrong: %+v, %v", l.FatbinEntries[:2], l.CudaArchitectures)
	}
	data, err := features.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 2*len(lib) {
		t.Errorf("%d bytes of JSON from a %d-byte library", len(data), len(lib))
	}
	// Few groups: none omitted, and the field is left out.
	got = detectEntries(t, []E{B("lib/libx.so", sharedLib("libx.so", nil, 80, 90))})
	if got.Libraries[0].FatbinEntriesOmitted != 0 {
		t.Errorf("omitted %d", got.Libraries[0].FatbinEntriesOmitted)
	}
	if data, _ := features.Encode(got); bytes.Contains(data, []byte("fatbinEntriesOmitted")) {
		t.Errorf("fatbinEntriesOmitted written when nothing was omitted")
	}
}

// TestCompressedArchiveMember: a static archive of a few hundred bytes
// whose member's .dynstr claims 1 GiB (zstd RLE blocks) is a library
// error naming the member and section, not a gigabyte.
func TestCompressedArchiveMember(t *testing.T) {
	obj := testelf.Build(testelf.Spec{Type: elf.ET_REL, Soname: "x", Compress: map[string]testelf.Compressed{
		".dynstr": {Type: elf.COMPRESS_ZSTD, Size: 1 << 30, Stream: testelf.ZstdRLE('a', 1<<30, 0)}}})
	ar := testelf.Archive(map[string][]byte{"bomb.o": obj}, []string{"bomb.o"})
	root := t.TempDir()
	if err := testarchive.WriteTree(root, []E{B("lib/libbomb.a", ar)}); err != nil {
		t.Fatal(err)
	}
	f, _ := boundedDetect(t, root, 64<<20, 2)
	if len(f.Libraries) != 1 || !strings.Contains(f.Libraries[0].Error, "member bomb.o: dynamic section: string table: section .dynstr: compressed (COMPRESS_ZSTD) to be 1073741824 bytes once decompressed: refused") {
		t.Errorf("%d-byte archive: libraries %+v", len(ar), f.Libraries)
	}
}
