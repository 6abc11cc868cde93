package dlopen

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// note is one ELF note as a linker lays it out: header, name and
// descriptor, each padded to align.
func note(owner string, typ uint32, desc string, align int) []byte {
	pad := func(b []byte) []byte {
		for len(b)%align != 0 {
			b = append(b, 0)
		}
		return b
	}
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, uint32(len(owner)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(desc)))
	out = binary.LittleEndian.AppendUint32(out, typ)
	out = pad(append(out, owner...))
	return pad(append(out, desc...))
}

func dlopenNote(json string) []byte { return note(noteOwner, noteType, json+"\x00", 4) }

func scanNoteSection(body []byte) (Result, error) {
	c := newCollector("libself.so.1", []string{"libneeded.so.1"})
	err := c.scanNotes(".note.dlopen", body, 0x200, 4, binary.LittleEndian)
	return c.result(), err
}

// TestNotes reads the two shapes of systemd's dlopen metadata (a list of
// objects with a list of sonames; the older single object with one
// soname) and skips other notes.
func TestNotes(t *testing.T) {
	var body []byte
	body = append(body, note("GNU\x00", 3, "0123456789abcdef0123", 4)...) // a build id
	body = append(body, dlopenNote(`[{"feature":"tpm","description":"Support for TPM","priority":"suggested","soname":["libtss2-esys.so.0","libtss2-rc.so.0"]},{"soname":["libneeded.so.1","libself.so.1"]}]`)...)
	body = append(body, note("XYZ\x00", noteType, `[{"soname":["libwrong.so.1"]}]`+"\x00", 4)...)
	body = append(body, note(noteOwner, 7, `[{"soname":["libwrong.so.2"]}]`+"\x00", 4)...)
	body = append(body, dlopenNote(`{"soname":"libold.so.3","feature":"old"}`)...)
	r, err := scanNoteSection(body)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, l := range r.Loads {
		got = append(got, strings.Join([]string{l.Name, l.Confidence, l.Feature, l.Description, l.Priority, l.Evidence[0].Kind}, "|"))
	}
	want := []string{
		"libold.so.3|declared|old|||note",
		"libtss2-esys.so.0|declared|tpm|Support for TPM|suggested|note",
		"libtss2-rc.so.0|declared|tpm|Support for TPM|suggested|note",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestHostileNotes: every refusal is an error naming the note, never a
// panic nor an allocation of what a size field claims; what came before
// is kept.
func TestHostileNotes(t *testing.T) {
	good := dlopenNote(`[{"soname":["libgood.so.1"]}]`)
	huge := make([]byte, 12)
	binary.LittleEndian.PutUint32(huge[0:], 4)
	binary.LittleEndian.PutUint32(huge[4:], 1<<30) // a 1 GB descriptor
	binary.LittleEndian.PutUint32(huge[8:], noteType)
	huge = append(huge, noteOwner...)
	hugeName := append([]byte(nil), huge...)
	binary.LittleEndian.PutUint32(hugeName[0:], 0xffffffff)
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000) // small enough for MaxNoteJSON, deeper than MaxNoteDepth
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"1 GB descriptor", append(append([]byte(nil), good...), huge...), "descriptor of 1073741824 bytes runs past the section"},
		{"4 GB name", append(append([]byte(nil), good...), hugeName...), "name of 4294967295 bytes runs past the section"},
		{"cut header", append(append([]byte(nil), good...), 1, 2, 3), "fewer than a note header's 12"},
		{"deep JSON", append(append([]byte(nil), good...), dlopenNote(deep)...), "nested too deeply"},
		{"large JSON", append(append([]byte(nil), good...), dlopenNote(`[{"soname":["libx.so"],"description":"`+strings.Repeat("a", MaxNoteJSON)+`"}]`)...), "more than 65536"},
		{"repeated key", append(append([]byte(nil), good...), dlopenNote(`[{"soname":["liba.so"],"soname":["libb.so"]}]`)...), "duplicate key"},
		{"soname a number", append(append([]byte(nil), good...), dlopenNote(`[{"soname":3}]`)...), "soname is neither a string nor a list of strings"},
		{"no soname", append(append([]byte(nil), good...), dlopenNote(`[{"feature":"x"}]`)...), "soname is neither"},
		{"empty soname", append(append([]byte(nil), good...), dlopenNote(`[{"soname":[""]}]`)...), "an empty soname"},
		{"not JSON", append(append([]byte(nil), good...), dlopenNote(`libfoo.so`)...), "dlopen note at offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := scanNoteSection(tc.body)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if len(r.Loads) != 1 || r.Loads[0].Name != "libgood.so.1" {
				t.Errorf("the note before is lost: %+v", r.Loads)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("allocated %d bytes for a %d-byte section", n, len(tc.body))
			}
		})
	}
}

// TestNoteEntriesBounded: a note of thousands of sonames keeps
// MaxLoads, counts the rest.
func TestNoteEntriesBounded(t *testing.T) {
	var names []string
	for i := range 1000 {
		names = append(names, `"libn`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i)+`.so"`)
	}
	r, err := scanNoteSection(dlopenNote(`[{"soname":[` + strings.Join(names, ",") + `]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Loads) != MaxLoads || r.Omitted != 1000-MaxLoads {
		t.Errorf("%d loads, %d omitted", len(r.Loads), r.Omitted)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}
