package nixpkgscheck

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/pkgeval"
)

// An nsight_systems-like package file that removes Qt with an rmPatterns
// list of antiquoted globs and keeps ICU.
const nsightFile = `{ buildRedist, ... }:
let
  hostDir = "host-linux-x64";
  rmPatterns = [ "${hostDir}/libQt6*" "${hostDir}/Plugins/imageformats/*.so" ];
in
buildRedist { redistName = "sample"; pname = "n"; outputs = [ "out" ]; }
`

// TestVendoredHints: a hint for each vendored library the package file
// keeps (ICU; libqgif.so's folder pattern and libQt6* remove the others),
// none for NVIDIA's own library; without VendoredCheck, none at all.
func TestVendoredHints(t *testing.T) {
	lib := func(p, soname string, needed ...string) features.Library {
		return features.Library{Path: p, Kind: "shared", Soname: soname, Needed: needed}
	}
	f := &features.Features{Libraries: []features.Library{
		lib("host-linux-x64/Plugins/imageformats/libqgif.so", "", "libQt6Core.so.6"),
		lib("host-linux-x64/libQt6Core.so.6", "libQt6Core.so.6", "libicuuc.so.71"),
		lib("host-linux-x64/libicuuc.so.71", "libicuuc.so.71"),
		lib("host-linux-x64/libnvlog.so", "libnvlog.so"),
	}}
	ix := sonameindex.New()
	if err := ix.Read(strings.NewReader("#! provider Debian\nlibQt6Core.so.6\nlibicuuc.so.72\nlibqgif.so imageformats/\n"), "t"); err != nil {
		t.Fatal(err)
	}
	read := func(file string) ([]byte, error) {
		if file != "n.nix" {
			return nil, os.ErrNotExist
		}
		return []byte(nsightFile), nil
	}
	in := Input{Manifests: []Manifest{{Redist: "sample", Version: "1.0", Releases: releases("n", "1.0")}},
		Archives: []Archive{x86("n", f)}, PackagesDir: "/pkgs", Vendored: &VendoredCheck{Index: ix, ReadFile: read}}
	results := map[string][]pkgeval.Result{"n.nix": one(evaluated("n", "out"))}
	var got []Finding
	for _, fd := range NewPlan(in).Check([]string{"n.nix"}, results) {
		if fd.Kind == KindVendoredLibrary {
			got = append(got, fd)
		}
	}
	want := []Finding{withPath(archiveFinding(LevelHint, KindVendoredLibrary, "n", "n.nix",
		"vendored ICU (libicuuc.so.71), which Debian ships; the file keeps it (no string of it matches the path); libQt6Core.so.6 needs it", nil, nil),
		"host-linux-x64/libicuuc.so.71")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vendored hints (-want +got):\n%s", diff)
	}
	in.Vendored = nil
	for _, fd := range NewPlan(in).Check([]string{"n.nix"}, results) {
		if fd.Kind == KindVendoredLibrary {
			t.Errorf("hint without the check: %+v", fd)
		}
	}
}

func TestRemovalPatterns(t *testing.T) {
	got := removalPatterns([]byte(nsightFile + `rm -f "$out/lib/libfoo.so.1" './libbar.so'`))
	want := []string{"*/libQt6*", "*/Plugins/imageformats/*.so", "*/lib/libfoo.so.1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patterns (-want +got):\n%s", diff)
	}
	for p, want := range map[string]bool{"host-linux-x64/libQt6Gui.so.6": true, "x/host-linux-x64/libQt6Gui.so.6": true,
		"host-linux-x64/Plugins/imageformats/libqgif.so": true, "host-linux-x64/libicuuc.so.71": false, "lib/libfoo.so.1": true} {
		if removed(got, p) != want {
			t.Errorf("removed(%s) = %v, want %v", p, !want, want)
		}
	}
}

// TestKeptVendored: the vendoredLibrary findings by file, paths sorted and
// once each (an archive per platform repeats them); other kinds left out.
func TestKeptVendored(t *testing.T) {
	v := func(file, p string) Finding { return Finding{Kind: KindVendoredLibrary, File: file, Path: p} }
	got := KeptVendored([]Finding{v("n.nix", "b/libz.so"), v("n.nix", "a/libQt6Core.so.6"), v("n.nix", "b/libz.so"),
		v("m.nix", "libssl.so.3"), {Kind: "couldSplit", File: "n.nix", Path: "lib/x.so"}})
	want := map[string][]string{"n.nix": {"a/libQt6Core.so.6", "b/libz.so"}, "m.nix": {"libssl.so.3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("KeptVendored (-want +got):\n%s", diff)
	}
}
