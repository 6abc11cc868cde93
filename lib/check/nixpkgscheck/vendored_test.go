package nixpkgscheck

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
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

// TestProposedRemovalsCountAsRemoved: the postPatch that --fix
// --remove-vendored writes removes, for the next check, every path it
// lists: its hints go, and a second --fix has nothing to add (it would
// refuse the file, which has a postPatch now).
func TestProposedRemovalsCountAsRemoved(t *testing.T) {
	paths := []string{"host-linux-x64/libQt6Core.so.6", "host-linux-armv8/Plugins/imageformats/libqgif.so", "lib/libstdc++.so.6"}
	text, err := nixfix.ProposeRemovals(nsightFile, paths)
	if err != nil {
		t.Fatal(err)
	}
	patterns := removalPatterns([]byte(text))
	for _, p := range paths {
		if !removed(patterns, p) {
			t.Errorf("%s is not removed by the written postPatch (patterns %q):\n%s", p, patterns, text)
		}
	}
	if removed(patterns, "host-linux-x64/libicuuc.so.71") {
		t.Errorf("a path the postPatch does not list counts as removed (patterns %q)", patterns)
	}
}

// TestVendoredHintText: the text line of a vendored hint names the
// library and the file, and says nothing of outputs (it has none).
func TestVendoredHintText(t *testing.T) {
	f := Finding{Level: LevelHint, Kind: KindVendoredLibrary, Package: "nsight_systems", Platform: "linux-x86_64", Variant: "None", Version: "2025.1",
		File: "nsight_systems.nix", Path: "host-linux-x64/libQt6Core.so.6", Message: "vendored Qt6Core (libQt6Core.so.6), which Debian ships"}
	want := "HINT  nsight_systems linux-x86_64 None 2025.1: host-linux-x64/libQt6Core.so.6: vendored Qt6Core (libQt6Core.so.6), which Debian ships [nsight_systems.nix]"
	if got := f.Text(); got != want {
		t.Errorf("Text:\n got %s\nwant %s", got, want)
	}
}

// TestRemovalPatternsNeedALiteralName: a string that is only
// antiquotations and variables (the "$path" of a removal loop, "$out/${dir}")
// reads as a bare wildcard that would match every library; it is no
// removal pattern, so the hints stay.
func TestRemovalPatternsNeedALiteralName(t *testing.T) {
	text := `postPatch = ''
    for path in "''${rmPatterns[@]}"; do
      rm -r "$path"
    done
    cp -r "$out/${dir}" "''${lib}"
  '';`
	for _, p := range []string{"host-linux-x64/libQt6Core.so.6", "libicuuc.so.71"} {
		if pats := removalPatterns([]byte(text)); removed(pats, p) {
			t.Errorf("%s counts as removed by patterns %q", p, pats)
		}
	}
}
