package facts_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// TestRuntimeLoadsInRecord: a shared library's runtime loads reach its
// record (and the JSON), its DT_NEEDED left out; an object file's
// strings are not read (archive members and objects are no libraries a
// process loads).
func TestRuntimeLoadsInRecord(t *testing.T) {
	rodata := testelf.Section{Name: ".rodata", Data: []byte("\x00libnvrtc.so.13\x00libc.so.6\x00failed to load libnvrtc.so.13: %s\x00")}
	shared := testelf.Build(testelf.Spec{Soname: "libcublasLt.so.13", Needed: []string{"libc.so.6"}, Sections: []testelf.Section{rodata}})
	obj := testelf.Build(testelf.Spec{Type: 1, NoDynamic: true, Sections: []testelf.Section{rodata}})
	f := detectEntries(t, []E{
		B("lib/libcublasLt.so.13", shared),
		B("lib/libobj.a", testelf.Archive(map[string][]byte{"a.o": obj}, []string{"a.o"})),
	})
	if len(f.Libraries) != 2 {
		t.Fatalf("libraries %+v", f.Libraries)
	}
	lt, static := f.Libraries[0], f.Libraries[1]
	if len(static.RuntimeLoads) != 0 {
		t.Errorf("static archive: %+v", static.RuntimeLoads)
	}
	if len(lt.RuntimeLoads) != 1 || lt.RuntimeLoads[0].Name != "libnvrtc.so.13" || lt.RuntimeLoads[0].Confidence != "high" || len(lt.RuntimeLoads[0].Evidence) != 2 {
		t.Fatalf("libcublasLt.so.13: %+v", lt.RuntimeLoads)
	}
	out, err := json.Marshal(lt)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"runtimeLoads":[{"name":"libnvrtc.so.13","confidence":"high","evidence":[{"kind":"soname","section":".rodata"`, `"kind":"mention"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}

// fatbinContainer is a fatbin container (magic, version 1, a 16-byte
// header, the payload's size) holding payload.
func fatbinContainer(payload string) []byte {
	h := binary.LittleEndian.AppendUint32(nil, 0xBA55ED50)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = binary.LittleEndian.AppendUint64(h, uint64(len(payload)))
	return append(h, payload...)
}

// TestRuntimeLoadsLargeLibrary: a library too large to be read whole
// (walk.go's smallFile) is searched for ".so" a piece at a time while
// it is hashed (dlopen.Prescan), and gives what elfinfo.Read gives on
// its bytes in memory: a name split between two pieces, and a fatbin
// container split between two pieces, included. The strings inside the
// fatbin containers of its .data (device code, as libcufft holds 216 MB
// of) are no loads.
func TestRuntimeLoadsLargeLibrary(t *testing.T) {
	const piece = 128 << 10 // walk.go's readPiece
	build := func(data []byte) []byte {
		return testelf.Build(testelf.Spec{Soname: "libbig.so.1", Sections: []testelf.Section{{Name: ".data", Data: data}}})
	}
	size := 3 * piece
	probe := build(make([]byte, size))
	f, err := elf.NewFile(bytes.NewReader(probe))
	if err != nil {
		t.Fatal(err)
	}
	base := int(f.Section(".data").Offset) // the same for any content of this size
	data := make([]byte, size)
	place := func(fileOff int, b []byte) { copy(data[fileOff-base:], b) }
	place(piece-6, []byte("\x00libseam.so.1\x00")) // ".so" across the first seam
	hidden := fatbinContainer(strings.Repeat("\x00libhidden.so.1\x00", 100))
	place(2*piece-7, hidden)                                                // its header across the second seam
	place(2*piece-7+len(hidden)+8, fatbinContainer("\x00libnext.so.1\x00")) // back to back, 8 bytes of padding
	place(base+size-40, []byte("\x00libtail.so.2\x00"))
	lib := build(data)
	if len(lib) <= 256<<10 {
		t.Fatalf("%d bytes: read whole, not in pieces", len(lib))
	}
	rec := detectEntries(t, []E{B("lib/libbig.so.1", lib)})
	info, err := elfinfo.Read(lib)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(info.RuntimeLoads, rec.Libraries[0].RuntimeLoads); diff != "" {
		t.Errorf("read in pieces (-in memory +in pieces):\n%s", diff)
	}
	var names []string
	for _, l := range rec.Libraries[0].RuntimeLoads {
		names = append(names, l.Name)
	}
	if want := []string{"libseam.so.1", "libtail.so.2"}; !slices.Equal(names, want) {
		t.Errorf("loads %v, want %v", names, want)
	}
}
