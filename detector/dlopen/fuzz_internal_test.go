package dlopen

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// FuzzScan feeds the same bytes to the string scan and the note reader.
// Whatever they hold: no panic, at most MaxLoads names and MaxEvidence
// places each, every kept string valid UTF-8 and at most MaxStringLen
// bytes, every name from the data holding ".so", and the bytes looked at
// at most twice the input.
func FuzzScan(f *testing.F) {
	for _, seed := range [][]byte{
		[]byte("\x00libnvrtc.so.13\x00libnuma.so.%s\x00libnvrtc.so.\x00/usr/lib64/libnvidia-ml.so.1\x00"),
		[]byte("\xf0?libcuda.so.1\x00Failed to open libgdrapi.so.2\x00skipping libmlx5.so.1.\x00"),
		[]byte("\x00nvshmem_transport_%s.so.%d\x00%s-%s.so\x00shl-%%%%.so\x00lib.so.lib.so.\x00"),
		dlopenNote(`[{"feature":"f","description":"d","priority":"required","soname":["libfoo.so.1","libbar.so.2"]}]`),
		dlopenNote(`{"soname":"libold.so.1"}`),
		append(dlopenNote(`[{"soname":["liba.so"]}]`), note(noteOwner, noteType, "[[[[[[[[[[]]]]]]]]]]\x00", 4)...),
		withContainers(),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newCollector("libself.so.1", []string{"libc.so.6"})
		c.scanStrings(".rodata", data, 0)
		_ = c.scanNotes(".note.dlopen", data, 0, 4, binary.LittleEndian)
		_ = c.scanNotes(".note.dlopen", data, 0, 8, binary.BigEndian)
		r := c.result()
		if len(r.Loads) > MaxLoads {
			t.Fatalf("%d loads", len(r.Loads))
		}
		if r.looked > 2*len(data) {
			t.Fatalf("looked at %d bytes of %d", r.looked, len(data))
		}
		for _, l := range r.Loads {
			checkFuzzedLoad(t, l)
		}
	})
}

// checkFuzzedLoad: the load has 1 to MaxEvidence places, a known
// confidence, a name other than the file's own and its needed ones, with
// ".so" unless declared, and every kept string valid UTF-8 and at most
// MaxStringLen bytes.
func checkFuzzedLoad(t *testing.T, l features.RuntimeLoad) {
	t.Helper()
	if len(l.Evidence) == 0 || len(l.Evidence) > MaxEvidence || !IsLoad(l.Confidence) && l.Confidence != Low {
		t.Fatalf("load %+v", l)
	}
	if l.Name == "libself.so.1" || l.Name == "libc.so.6" {
		t.Fatalf("own name %q kept", l.Name)
	}
	if l.Confidence != Declared && !bytes.Contains([]byte(l.Name), dotSo) {
		t.Fatalf("name %q without .so", l.Name)
	}
	for _, s := range []string{l.Name, l.Feature, l.Description, l.Priority} {
		if !utf8.ValidString(s) || len(s) > MaxStringLen {
			t.Fatalf("kept %q", s)
		}
	}
	for _, e := range l.Evidence {
		if !utf8.ValidString(e.String) || len(e.String) > MaxStringLen {
			t.Fatalf("evidence %q", e.String)
		}
	}
}
