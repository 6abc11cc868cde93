package facts_test

import (
	"encoding/json"
	"strings"
	"testing"

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
