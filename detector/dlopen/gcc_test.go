package dlopen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// source is a library as a C programmer writes one: a .note.dlopen made
// the way systemd's SD_ELF_NOTE_DLOPEN makes it, a dlopen of a soname, a
// template filled in with snprintf, an absolute path, and error messages.
const source = `
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#define JSON "[{\"feature\":\"tpm\",\"description\":\"TPM support\",\"priority\":\"recommended\",\"soname\":[\"libtss2-esys.so.0\"]}]"
__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct {
	struct { uint32_t n_namesz, n_descsz, n_type; } nhdr;
	char name[4];
	_Alignas(4) char json[sizeof(JSON)];
} note = { { 4, sizeof(JSON), 0x407c0c0a }, "FDO", JSON };

void *open_all(int major) {
	char name[64];
	void *h = dlopen("libnvrtc.so.13", RTLD_NOW);
	if (!h) fprintf(stderr, "failed to load libnvrtc.so.13: %s\n", dlerror());
	snprintf(name, sizeof name, "libnuma.so.%d", major);
	dlopen(name, RTLD_NOW);
	dlopen("/usr/lib64/libnvidia-ml.so.1", RTLD_NOW);
	fprintf(stderr, "could not open libgdrapi.so.2, GDRCopy disabled\n");
	return h;
}
`

// TestRealToolchain builds that library with gcc and reads it back: the
// note, the soname, the template and the path are loads, the message
// alone is a mention, libc is DT_NEEDED and so left out.
func TestRealToolchain(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		testenv.Unavailable(t, "gcc is not installed (apt-get install gcc)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "t.c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libt.so.1")
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-o", lib, src, "-Wl,-soname,libt.so.1", "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	info, err := elfinfo.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range info.RuntimeLoads {
		var kinds []string
		for _, e := range l.Evidence {
			kinds = append(kinds, e.Kind+"@"+e.Section)
		}
		got = append(got, l.Name+" "+l.Confidence+" "+l.Priority+" "+strings.Join(kinds, ","))
	}
	want := []string{
		"libgdrapi.so.2 low  mention@.rodata",
		"libnuma.so.%d high  template@.rodata",
		"libnvidia-ml.so.1 medium  path@.rodata",
		"libnvrtc.so.13 high  soname@.rodata,mention@.rodata",
		"libtss2-esys.so.0 declared recommended note@.note.dlopen",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
