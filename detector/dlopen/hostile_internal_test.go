package dlopen

import (
	"bytes"
	"debug/elf"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// heapDuring returns the bytes f allocated.
func heapDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileStringTables holds the string scan to its bounds on
// sections no library has, by counting (never timing): the bytes looked
// at around the names at most twice the section, the names kept at most
// MaxLoads with the rest counted, and the heap a constant.
func TestHostileStringTables(t *testing.T) {
	var millions bytes.Buffer // a million distinct sonames, 17 MB
	for i := range 1_000_000 {
		fmt.Fprintf(&millions, "\x00lib%08d.so.1", i)
	}
	millions.WriteByte(0)
	for _, tc := range []struct {
		name      string
		body      []byte
		loads     int
		omitted   int
		maxLooked int
	}{
		{"a million sonames", millions.Bytes(), MaxLoads, 1_000_000 - MaxLoads, millions.Len()},
		// One 64 MB string, no NUL: every name inside is a mention; each
		// is looked at once.
		{"64 MB without a NUL", bytes.Repeat([]byte("see libfoo.so "), 64<<20/14), 1, 0, 64 << 20},
		{"64 MB of .so", bytes.Repeat([]byte(".so"), 64<<20/3), 0, 0, 64 << 20},
		// Names followed by name characters are none, but the last.
		{"64 MB of lib.so.", bytes.Repeat([]byte("lib.so."), 64<<20/7), 1, 0, 64 << 20},
		// Sixteen million strings of one name: one load, its evidence
		// counted.
		{"64 MB of NULs and x.so", bytes.Repeat([]byte("\x00x.so"), 64<<20/5), 1, 0, 64 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Result
			heap := heapDuring(func() { r = scanBytes(tc.body, "") })
			if len(r.Loads) != tc.loads || r.Omitted != tc.omitted {
				t.Errorf("%d loads, %d omitted; want %d, %d", len(r.Loads), r.Omitted, tc.loads, tc.omitted)
			}
			if r.looked > tc.maxLooked {
				t.Errorf("looked at %d bytes of a %d-byte section", r.looked, len(tc.body))
			}
			// The names kept and little more, whatever the section's size.
			if limit := uint64(4 << 20); heap > limit {
				t.Errorf("allocated %d bytes, more than %d", heap, limit)
			}
		})
	}
}

// TestOverlappingSections: section headers that name the same bytes a
// thousand times cost no more than the file.
func TestOverlappingSections(t *testing.T) {
	rodata := bytes.Repeat([]byte("\x00libcuda.so.1"), 100_000)
	data := testelf.Build(testelf.Spec{Soname: "libx.so.1", Sections: []testelf.Section{{Name: ".rodata", Data: rodata}}})
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".rodata")
	for range 1000 {
		f.Sections = append(f.Sections, &elf.Section{SectionHeader: sec.SectionHeader})
	}
	r, err := Scan(f, data, "libx.so.1", nil)
	if err == nil || !strings.Contains(err.Error(), "pass the file's") {
		t.Errorf("error %v, want the overlap named", err)
	}
	if r.Work > len(data) {
		t.Errorf("read %d bytes of sections in a %d-byte file", r.Work, len(data))
	}
	if len(r.Loads) != 1 || r.Loads[0].EvidenceOmitted == 0 {
		t.Errorf("loads %+v", r.Loads)
	}
}

// TestSectionsRead: only the data sections count; .dynstr, symbol
// names, debug info and device code do not.
func TestSectionsRead(t *testing.T) {
	data := testelf.Build(testelf.Spec{
		Soname: "libx.so.1", Needed: []string{"libc.so.6"},
		DynStr: []byte("libfromdynstr.so.1\x00"),
		Sections: []testelf.Section{
			{Name: ".rodata", Data: []byte("\x00librodata.so.1\x00")},
			{Name: ".rodata.str1.1", Data: []byte("\x00librodatastr.so.1\x00")},
			{Name: ".lrodata", Data: []byte("\x00liblrodata.so.1\x00")},
			{Name: ".data.rel.ro", Data: []byte("\x00libdatarelro.so.1\x00")},
			{Name: ".nv_fatbin", Data: []byte("\x00libfatbin.so.1\x00")},
			{Name: ".debug_str", Data: []byte("\x00libdebug.so.1\x00")},
			{Name: ".gnu_debuglink", Data: []byte("libx.so.1.debug\x00")},
			{Name: ".note.dlopen", Type: elf.SHT_NOTE, Align: 4, Data: dlopenNote(`[{"soname":["libnote.so.1"],"priority":"required"}]`)},
		},
	})
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Scan(f, data, "libx.so.1", []string{"libc.so.6"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range r.Loads {
		got = append(got, l.Name+"@"+l.Evidence[0].Section)
	}
	want := "libdatarelro.so.1@.data.rel.ro liblrodata.so.1@.lrodata libnote.so.1@.note.dlopen librodata.so.1@.rodata librodatastr.so.1@.rodata.str1.1"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}
