package vendored_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/vendored"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

const index = `#! provider Debian bookworm main
libQt6Core.so.6
libicuuc.so.72
libOpenCL.so.1
libcrypto.so.3
libprotobuf.so.32
libqgif.so imageformats/
libCore.so plugins/
`

func lib(p, soname string, needed ...string) features.Library {
	return features.Library{Path: p, Kind: "shared", Soname: soname, Needed: needed}
}

func archives() []manifest.DetectedArchive {
	qt := lib("host-linux-x64/libQt6Core.so.6", "libQt6Core.so.6", "libicuuc.so.71")
	qt.VersionDefinitions = []string{"Qt_6", "Qt_6_PRIVATE_API", "Qt_6.4"}
	qt.Comments = []string{"GCC: (GNU) 10.3.1"}
	nsys := &features.Features{Libraries: []features.Library{
		lib("host-linux-x64/Plugins/imageformats/libqgif.so", "", "libQt6Core.so.6"),
		lib("host-linux-x64/libCore.so", "libCore.so", "libQt6Core.so.6"),
		lib("host-linux-x64/libOpenCL.so.1", "libOpenCL.so.1"),
		qt,
		lib("host-linux-x64/libicuuc.so.71", "libicuuc.so.71"),
		lib("host-linux-x64/libprotobuf-shared.so", "libprotobuf-shared.so"),
		lib("host-linux-x64/libnvlog.so", "libnvlog.so", "libQt6Core.so.6", "libprotobuf-shared.so"),
		{Path: "host-linux-x64/libcrypto.a", Kind: "static"},
		{Path: "lib/stubs/libcrypto.so.3", Kind: "shared", Soname: "libcrypto.so.3", Stub: true},
	}}
	opencl := &features.Features{ProvidedLibs: features.Grouped{List: []string{"libOpenCL.so.1"}},
		Libraries: []features.Library{lib("lib/libOpenCL.so.1", "libOpenCL.so.1")}}
	return []manifest.DetectedArchive{
		{Archive: manifest.Archive{Package: "cuda_opencl", Platform: "linux-x86_64"}, Features: opencl},
		{Archive: manifest.Archive{Package: "nsight_systems", Platform: "linux-x86_64"}, Features: nsys},
	}
}

// TestCheck: exact, other-version and renamed index hits are vendored
// with their evidence, upstream name and the libraries needing them; a
// plugin name matches only in its folder (libCore.so is NVIDIA's, the
// index has qtcreator's plugins/libCore.so); libOpenCL.so.1 is a tie,
// NVIDIA's wherever it is since cuda_opencl provides it in lib/; static
// archives and stubs are not looked at.
func TestCheck(t *testing.T) {
	ix := sonameindex.New()
	if err := ix.Read(strings.NewReader(index), "test"); err != nil {
		t.Fatal(err)
	}
	as := archives()
	got := vendored.Check(as, vendored.NVIDIASonames(as), ix)
	type row struct{ Path, Name, Upstream, How string }
	var rows []row
	for _, r := range got {
		for _, v := range r.Vendored {
			rows = append(rows, row{v.Path, v.Name, v.Upstream, v.Index[0].How})
		}
	}
	want := []row{
		{"host-linux-x64/Plugins/imageformats/libqgif.so", "libqgif.so", "Qt 6 plugin (imageformats)", "exact"},
		{"host-linux-x64/libQt6Core.so.6", "libQt6Core.so.6", "Qt6Core", "exact"},
		{"host-linux-x64/libicuuc.so.71", "libicuuc.so.71", "ICU", "otherVersion"},
		{"host-linux-x64/libprotobuf-shared.so", "libprotobuf-shared.so", "Protocol Buffers", "renamed"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("vendored (-want +got):\n%s", diff)
	}
	var ties []string
	for _, r := range got {
		for _, tie := range r.NVIDIA {
			ties = append(ties, r.Package+" "+tie.Path+" "+strings.Join(tie.Packages, ","))
		}
	}
	if diff := cmp.Diff([]string{"cuda_opencl lib/libOpenCL.so.1 cuda_opencl", "nsight_systems host-linux-x64/libOpenCL.so.1 cuda_opencl"}, ties); diff != "" {
		t.Errorf("ties (-want +got):\n%s", diff)
	}
	var qt vendored.Library
	for _, v := range got[1].Vendored {
		if v.Name == "libQt6Core.so.6" {
			qt = v
		}
	}
	wantEvidence := []string{
		"index, same name: libQt6Core.so.6 (Debian bookworm main)",
		"version definitions: Qt_6, Qt_6_PRIVATE_API, Qt_6.4",
		"compiler: GCC: (GNU) 10.3.1",
		"path: host-linux-x64/ (a host tool's folder, not lib/)",
	}
	if diff := cmp.Diff(wantEvidence, qt.Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"host-linux-x64/Plugins/imageformats/libqgif.so", "host-linux-x64/libCore.so", "host-linux-x64/libnvlog.so"}, qt.NeededBy); diff != "" {
		t.Errorf("neededBy (-want +got):\n%s", diff)
	}
}

// TestUpstream: names from the soname, the version definitions, the
// folder.
func TestUpstream(t *testing.T) {
	vd := func(l features.Library, defs ...string) features.Library { l.VersionDefinitions = defs; return l }
	for _, c := range []struct {
		lib  features.Library
		want string
	}{
		{lib("a/libQt6Widgets.so.6", "libQt6Widgets.so.6"), "Qt6Widgets"},
		{lib("a/libboost_regex.so.1.78.0", "libboost_regex.so.1.78.0"), "Boost"},
		{lib("a/libssl.so.3", "libssl.so.3"), "OpenSSL"},
		{lib("a/libstdc++.so.6", "libstdc++.so.6"), "libstdc++"},
		{vd(lib("a/libfoo.so.1", "libfoo.so.1"), "GLIBCXX_3.4.29"), "libstdc++"},
		{vd(lib("a/libmyssl.so.3", "libmyssl.so.3"), "OPENSSL_3.0.0"), "OpenSSL"},
		{lib("a/libsqlite3-shared.so", "libsqlite3-shared.so"), "SQLite"},
		{lib("a/libpython3.10.so.1.0", "libpython3.10.so.1.0"), "Python"},
		{lib("Plugins/platforms/libqxcb.so", "", "libQt6Gui.so.6"), "Qt 6 plugin (platforms)"},
		{lib("a/libfoo.so.1", "libfoo.so.1"), "foo"},
	} {
		if got := vendored.Upstream(c.lib); got != c.want {
			t.Errorf("Upstream(%s) = %q, want %q", c.lib.Path, got, c.want)
		}
	}
}

// TestManyLibraries: an archive of 10,000 vendored libraries, each needed
// by the 20 after it (200,000 DT_NEEDED entries), is classified in one
// pass over them (not 10,000 × 10,000), every dependant listed.
func TestManyLibraries(t *testing.T) {
	ix := sonameindex.New()
	var text strings.Builder
	f := &features.Features{}
	for i := range 10000 {
		name := fmt.Sprintf("libv%d.so.1", i)
		fmt.Fprintln(&text, name)
		var needed []string
		for j := max(0, i-20); j < i; j++ {
			needed = append(needed, fmt.Sprintf("libv%d.so.1", j))
		}
		f.Libraries = append(f.Libraries, lib(fmt.Sprintf("host/%s", name), name, needed...))
	}
	if err := ix.Read(strings.NewReader(text.String()), "many"); err != nil {
		t.Fatal(err)
	}
	r := vendored.CheckArchive(manifest.DetectedArchive{Archive: manifest.Archive{Package: "p"}, Features: f}, nil, ix)
	if len(r.Vendored) != 10000 {
		t.Fatalf("%d vendored, want 10000", len(r.Vendored))
	}
	if n := len(r.Vendored[0].NeededBy); n != 20 {
		t.Errorf("libv0.so.1 needed by %d, want 20", n)
	}
	if n := len(r.Vendored[9999].NeededBy); n != 0 {
		t.Errorf("libv9999.so.1 needed by %d, want 0", n)
	}
}
