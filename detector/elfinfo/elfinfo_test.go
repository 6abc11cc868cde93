package elfinfo_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

type img = testfatbin.Image

func TestRead(t *testing.T) {
	fat := testfatbin.Section(testfatbin.Container(img{SM: 52}, img{SM: 80, Compress: true}), testfatbin.Container(img{SM: 90, PTX: true}))
	tests := []struct {
		name       string
		spec       testelf.Spec
		wantSoname string
		wantNeeded []string
		wantArchs  []string
	}{
		{
			name: "64-bit little-endian with fatbin",
			spec: testelf.Spec{Soname: "libcufoo.so.12", Needed: []string{"libcudart.so.12", "libc.so.6"},
				Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}}},
			wantSoname: "libcufoo.so.12", wantNeeded: []string{"libcudart.so.12", "libc.so.6"},
			wantArchs: []string{"sm_52", "sm_80", "sm_90"},
		},
		{
			name: "32-bit little-endian",
			spec: testelf.Spec{Class: elf.ELFCLASS32, Machine: elf.EM_386, Soname: "libfoo.so.1", Needed: []string{"libm.so.6"},
				Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}}},
			wantSoname: "libfoo.so.1", wantNeeded: []string{"libm.so.6"}, wantArchs: []string{"sm_52", "sm_80", "sm_90"},
		},
		{
			name: "64-bit big-endian",
			spec: testelf.Spec{Data: elf.ELFDATA2MSB, Machine: elf.EM_PPC64, Soname: "libbe.so.1", Needed: []string{"libc.so.6"},
				Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}}},
			wantSoname: "libbe.so.1", wantNeeded: []string{"libc.so.6"}, wantArchs: []string{"sm_52", "sm_80", "sm_90"},
		},
		{
			name:       "32-bit big-endian, no device code",
			spec:       testelf.Spec{Class: elf.ELFCLASS32, Data: elf.ELFDATA2MSB, Machine: elf.EM_PPC, Soname: "libhost.so"},
			wantSoname: "libhost.so", wantArchs: []string{},
		},
		{
			name: ".nv_fatbin wins over __nv_relfatbin",
			spec: testelf.Spec{Sections: []testelf.Section{
				{Name: "__nv_relfatbin", Data: testfatbin.Container(img{SM: 35})},
				{Name: ".nv_fatbin", Data: testfatbin.Container(img{SM: 75})},
			}},
			wantArchs: []string{"sm_75"},
		},
		{
			name: "relocatable object with __nv_relfatbin",
			spec: testelf.Spec{Type: elf.ET_REL, NoDynamic: true, Sections: []testelf.Section{
				{Name: "__nv_relfatbin", Data: testfatbin.Container(img{SM: 70, PTX: true, HeaderSize: 96}, img{SM: 70})},
			}},
			wantArchs: []string{"sm_70"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := elfinfo.Read(testelf.Build(tc.spec))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if info.Soname != tc.wantSoname {
				t.Errorf("Soname = %q, want %q", info.Soname, tc.wantSoname)
			}
			if diff := cmp.Diff(tc.wantNeeded, info.Needed); diff != "" {
				t.Errorf("Needed (-want +got):\n%s", diff)
			}
			archs := info.Archs()
			if archs == nil {
				archs = []string{}
			}
			if diff := cmp.Diff(tc.wantArchs, archs); diff != "" {
				t.Errorf("Archs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	good := testelf.Build(testelf.Spec{Soname: "libx.so", Sections: []testelf.Section{{Name: ".nv_fatbin", Data: testfatbin.Container(img{SM: 80})}}})
	badFat := testelf.Build(testelf.Spec{Sections: []testelf.Section{{Name: ".nv_fatbin", Data: []byte("not a fatbin at all!")}}})
	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"truncated header", good[:30], "malformed ELF"},
		{"truncated before section headers", good[:len(good)-100], "malformed ELF"},
		{"not ELF", []byte("hello world, not an elf file at all........................................"), "malformed ELF"},
		{"corrupt fatbin", badFat, "section .nv_fatbin: fatbin container at offset 0x0: bad magic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := elfinfo.Read(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestMembers(t *testing.T) {
	a := testelf.Build(testelf.Spec{Type: elf.ET_REL, NoDynamic: true})
	names := []string{"short.o", "a_rather_long_member_name_for_gnu.o", "odd.o"}
	ar := testelf.Archive(map[string][]byte{names[0]: a, names[1]: a, names[2]: []byte("odd")}, names)
	members, err := elfinfo.Members(ar)
	if err != nil {
		t.Fatalf("Members: %v", err)
	}
	var got []string
	for _, m := range members {
		got = append(got, m.Name)
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("member names (-want +got):\n%s", diff)
	}
	if string(members[2].Data) != "odd" {
		t.Errorf("odd member data = %q", members[2].Data)
	}
	if _, err := elfinfo.Members(ar[:len(ar)-2]); err == nil || !strings.Contains(err.Error(), "runs past the end") {
		t.Errorf("truncated archive: err = %v", err)
	}
}

// TestAgainstToolchain builds a real shared library and static archive with
// gcc, embeds fatbins with objcopy as nvcc's output would carry them, and
// checks sonames and needed libraries against patchelf.
func TestAgainstToolchain(t *testing.T) {
	for _, tool := range []string{"gcc", "objcopy", "ar"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Unavailable(t, tool+" is not installed (scripts/install-deps.sh installs it)")
		}
	}
	dir := buildWithToolchain(t)
	t.Run("shared library", func(t *testing.T) {
		info, err := elfinfo.Read(readFile(t, filepath.Join(dir, "libfoo.so")))
		if err != nil {
			t.Fatalf("Read libfoo.so: %v", err)
		}
		if diff := cmp.Diff([]string{"sm_60", "sm_86"}, info.Archs()); diff != "" {
			t.Errorf("libfoo.so archs (-want +got):\n%s", diff)
		}
		// The version script's names, without the base entry (the soname).
		if diff := cmp.Diff([]string{"FOO_1.0", "FOO_1.1"}, info.VersionDefs); diff != "" {
			t.Errorf("VersionDefs (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(readelfComments(t, dir, "libfoo.so"), info.Comments); diff != "" {
			t.Errorf("Comments (-readelf +got):\n%s", diff)
		}
		wantSoname, wantNeeded := patchelfNames(t, dir, "libfoo.so")
		if info.Soname != wantSoname {
			t.Errorf("Soname = %q, want %q", info.Soname, wantSoname)
		}
		if diff := cmp.Diff(wantNeeded, info.Needed); diff != "" {
			t.Errorf("Needed (-want +got):\n%s", diff)
		}
	})
	t.Run("static archive", func(t *testing.T) {
		members, err := elfinfo.Members(readFile(t, filepath.Join(dir, "libfoo_static.a")))
		if err != nil || len(members) != 1 {
			t.Fatalf("Members: %d members, err %v", len(members), err)
		}
		minfo, err := elfinfo.Read(members[0].Data)
		if err != nil {
			t.Fatalf("Read member: %v", err)
		}
		if diff := cmp.Diff([]string{"sm_75"}, minfo.Archs()); diff != "" {
			t.Errorf("archive member archs (-want +got):\n%s", diff)
		}
	})
}

// buildWithToolchain builds, in a new directory, libfoo.so (soname
// libfoo.so.3, versions FOO_1.0 and FOO_1.1, a .nv_fatbin of sm_60 and
// sm_86) and libfoo_static.a (one member with an sm_75
// __nv_relfatbin).
func buildWithToolchain(t *testing.T) string {
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("foo.c", []byte("#include <math.h>\ndouble foo(double x) { return sin(x); }\n"))
	write("fat.bin", testfatbin.Section(testfatbin.Container(img{SM: 60}, img{SM: 86, Compress: true}), testfatbin.Container(img{SM: 86, PTX: true})))
	write("rel.bin", testfatbin.Container(img{SM: 75}, img{SM: 75, PTX: true, HeaderSize: 112}))
	write("foo.map", []byte("FOO_1.0 { global: foo; local: *; };\nFOO_1.1 { } FOO_1.0;\n"))
	run("gcc", "-shared", "-fPIC", "-Wl,-soname,libfoo.so.3", "-Wl,--version-script,foo.map", "-o", "libfoo.so", "foo.c", "-lm")
	run("objcopy", "--add-section", ".nv_fatbin=fat.bin", "--set-section-flags", ".nv_fatbin=alloc,readonly", "--set-section-alignment", ".nv_fatbin=8", "libfoo.so")
	run("gcc", "-c", "-fPIC", "-o", "foo.o", "foo.c")
	run("objcopy", "--add-section", "__nv_relfatbin=rel.bin", "--set-section-alignment", "__nv_relfatbin=8", "foo.o")
	run("ar", "rcs", "libfoo_static.a", "foo.o")
	return dir
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// patchelfNames are the soname and needed libraries patchelf reads from
// lib, or without patchelf the values gcc was asked for.
func patchelfNames(t *testing.T, dir, lib string) (soname string, needed []string) {
	t.Helper()
	if _, err := exec.LookPath("patchelf"); err != nil {
		testenv.NotChecked(t, "patchelf is not installed (apt-get install patchelf): checking against the values gcc was asked for")
		return "libfoo.so.3", []string{"libm.so.6", "libc.so.6"}
	}
	return strings.TrimSpace(output(t, dir, "patchelf", "--print-soname", lib)),
		strings.Fields(output(t, dir, "patchelf", "--print-needed", lib))
}

// readelfComments are lib's distinct .comment strings as readelf prints
// them.
func readelfComments(t *testing.T, dir, lib string) []string {
	t.Helper()
	var comments []string
	for _, l := range strings.Split(output(t, dir, "readelf", "-p", ".comment", lib), "\n") {
		if _, c, ok := strings.Cut(l, "]"); ok && strings.TrimSpace(c) != "" && !slices.Contains(comments, strings.TrimSpace(c)) {
			comments = append(comments, strings.TrimSpace(c))
		}
	}
	if len(comments) == 0 {
		t.Fatal("readelf lists no .comment string for a gcc-built library")
	}
	return comments
}

func output(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

func FuzzRead(f *testing.F) {
	fat := testfatbin.Container(img{SM: 80}, img{SM: 90, PTX: true, Compress: true})
	f.Add(testelf.Build(testelf.Spec{Soname: "libx.so.1", Needed: []string{"liby.so"}, Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}}}))
	f.Add(testelf.Build(testelf.Spec{Class: elf.ELFCLASS32, Data: elf.ELFDATA2MSB, Soname: "libx.so.1"}))
	for _, typ := range []elf.CompressionType{elf.COMPRESS_ZLIB, elf.COMPRESS_ZSTD} {
		f.Add(testelf.Build(testelf.Spec{Soname: "libx.so.1", Needed: []string{"liby.so"}, Sections: []testelf.Section{{Name: ".nv_fatbin", Data: fat}},
			Compress: map[string]testelf.Compressed{".dynstr": {Type: typ}, ".dynamic": {Type: typ}, ".shstrtab": {Type: typ}, ".nv_fatbin": {Type: typ}}}))
	}
	f.Add(testelf.Build(testelf.Spec{DynStr: []byte("aaaaaaaa\x00"), DynamicEntries: [][2]uint64{{uint64(elf.DT_NEEDED), 1}, {uint64(elf.DT_NEEDED), 2}, {uint64(elf.DT_SONAME), 3}}}))
	f.Add(testelf.Build(testelf.Spec{Soname: "libQt6Core.so.6", VersionDefs: []string{"Qt_6", "Qt_6.2"},
		Sections: []testelf.Section{{Name: ".comment", Data: []byte("GCC: (GNU) 10.3.1\x00\xff\xfe\x00")}}}))
	f.Add(testelf.Build(testelf.Spec{Class: elf.ELFCLASS32, Data: elf.ELFDATA2MSB, Soname: "libssl.so.3", VersionDefs: []string{"OPENSSL_3.0.0"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := elfinfo.Read(data)
		if err == nil && info == nil {
			t.Fatal("nil info without error")
		}
		if info == nil {
			return
		}
		// What is kept comes from sections of at most the inflate bound.
		kept := len(info.Soname)
		for _, n := range info.Needed {
			kept += len(n)
		}
		if limit := max(elfinfo.MinInflate, elfinfo.MaxInflateRatio*len(data)); kept > limit {
			t.Fatalf("kept %d bytes of names from a %d-byte file", kept, len(data))
		}
		if len(info.Needed) > elfinfo.MaxNeeded {
			t.Fatalf("%d DT_NEEDED kept", len(info.Needed))
		}
		if len(info.VersionDefs) > elfinfo.MaxVersionDefs || len(info.Comments) > elfinfo.MaxComments {
			t.Fatalf("%d version definitions, %d comments kept", len(info.VersionDefs), len(info.Comments))
		}
		for _, c := range info.Comments {
			// A cut string made valid UTF-8: an invalid byte becomes U+FFFD (3 bytes).
			if c == "" || len(c) > 3*elfinfo.MaxCommentLen || !utf8.ValidString(c) {
				t.Fatalf("comment %q kept", c)
			}
		}
	})
}

func FuzzMembers(f *testing.F) {
	a := testelf.Build(testelf.Spec{Type: elf.ET_REL, NoDynamic: true})
	f.Add(testelf.Archive(map[string][]byte{"x.o": a, "a_very_long_object_name_indeed.o": a}, []string{"x.o", "a_very_long_object_name_indeed.o"}))
	f.Add([]byte("!<arch>\n//                                              8         `\nlong/\nab/0              0           0     0     644     0         `\n/3              0           0     0     644     0         `\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		members, _ := elfinfo.Members(data)
		total := 0
		for _, m := range members {
			total += len(m.Data)
			// A name is part of the archive: a long name a substring
			// of its table, never a copy of the rest of it.
			if len(m.Name) > len(data) || !strings.Contains(string(data), m.Name) && !strings.Contains(string(data), m.Name+"/") {
				t.Fatalf("member name %q is not in the archive", m.Name)
			}
		}
		if total > len(data) {
			t.Fatalf("members hold %d bytes of a %d-byte archive", total, len(data))
		}
	})
}
