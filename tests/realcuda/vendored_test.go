package realcuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/vendored"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// nsightVendored is the hand list of the third-party libraries in Debian
// bookworm's nsight-systems 2022.4.2.1 (CUDA 11.8's Nsight Systems), made
// from the tree: paths under the archive's root. A library is on it when
// its code is a free project's that a free distribution ships as a
// library, whatever NVIDIA named the file.
var nsightVendored = []string{
	// Qt 6 (6.3): Qt's sonames, each defines the Qt_6 symbol versions
	// and needs only Qt, ICU and system libraries.
	"libQt6Concurrent.so.6", "libQt6Core.so.6", "libQt6DBus.so.6", "libQt6Gui.so.6", "libQt6Network.so.6",
	"libQt6OpenGL.so.6", "libQt6OpenGLWidgets.so.6", "libQt6Positioning.so.6", "libQt6PrintSupport.so.6",
	"libQt6Qml.so.6", "libQt6QmlModels.so.6", "libQt6Quick.so.6", "libQt6QuickWidgets.so.6",
	"libQt6StateMachine.so.6", "libQt6Svg.so.6", "libQt6UiTools.so.6", "libQt6WaylandClient.so.6",
	"libQt6WaylandEglClientHwIntegration.so.6", "libQt6WebChannel.so.6", "libQt6WebEngineCore.so.6",
	"libQt6WebEngineWidgets.so.6", "libQt6Widgets.so.6", "libQt6XcbQpa.so.6", "libQt6Xml.so.6",
	// Qt 6's plugins: no soname, loaded by Qt from Plugins/<kind>/, the
	// file names and folders of qtbase, qtsvg and qtwayland.
	"Plugins/imageformats/libqgif.so", "Plugins/imageformats/libqico.so", "Plugins/imageformats/libqjpeg.so",
	"Plugins/imageformats/libqsvg.so", "Plugins/imageformats/libqtga.so", "Plugins/imageformats/libqwbmp.so",
	"Plugins/platforms/libqoffscreen.so", "Plugins/platforms/libqwayland-egl.so",
	"Plugins/platforms/libqwayland-generic.so", "Plugins/platforms/libqxcb.so",
	"Plugins/tls/libqcertonlybackend.so", "Plugins/tls/libqopensslbackend.so",
	"Plugins/wayland-decoration-client/libbradient.so",
	"Plugins/wayland-graphics-integration-client/libqt-plugin-wayland-egl.so",
	"Plugins/wayland-graphics-integration-client/libshm-emulation-server.so",
	"Plugins/wayland-graphics-integration-client/libvulkan-server.so",
	"Plugins/wayland-shell-integration/libfullscreen-shell-v1.so",
	"Plugins/wayland-shell-integration/libivi-shell.so", "Plugins/wayland-shell-integration/libxdg-shell.so",
	"Plugins/xcbglintegrations/libqxcb-glx-integration.so",
	// Boost 1.78: Boost's sonames (Debian 12 has 1.74 and 1.81).
	"libboost_atomic.so.1.78.0", "libboost_chrono.so.1.78.0", "libboost_container.so.1.78.0",
	"libboost_date_time.so.1.78.0", "libboost_filesystem.so.1.78.0", "libboost_iostreams.so.1.78.0",
	"libboost_program_options.so.1.78.0", "libboost_regex.so.1.78.0", "libboost_serialization.so.1.78.0",
	"libboost_system.so.1.78.0", "libboost_thread.so.1.78.0", "libboost_timer.so.1.78.0",
	// ICU 71 (Debian 12 has 72), which Qt6Core needs.
	"libicudata.so.71", "libicui18n.so.71", "libicuuc.so.71",
	// PAPI 5, the Performance API (Debian 12 has libpapi.so.7.0).
	"libpapi.so.5",
	// Protocol Buffers and SQLite, built by NVIDIA as CMake's shared
	// targets (protobuf-shared, sqlite3-shared): the projects' code under
	// another file name.
	"libprotobuf-shared.so", "libsqlite3-shared.so",
}

// Left off the hand list, on purpose:
//   - libQtPropertyBrowser.so: the Qt Solutions property browser, free
//     code, but no distribution ships it as a library (it is a source
//     component of qttools): there is nothing to replace it with.
//   - libSshClient.so, libCore.so, libexporter.so and the other
//     lib<CamelCase>.so, libnvlog.so, Plugins/CorePlugin and QuadDPlugin:
//     NVIDIA's own (Debian's qtcreator ships a plugins/libCore.so and
//     codeblocks a plugins/libexporter.so: other programs' plugins).
//   - libssh.so: Debian's package replaced NVIDIA's libssh with a link to
//     the system's libssh.so.4; in this tree it dangles, no copy is left.

// nsightTree lays Debian's nsight-systems out as NVIDIA's redist archive
// nsight_systems-linux-x86_64-2022.4.2.1-archive: the tree under
// usr/lib/nsight-systems (host-linux-x64/, bin/) is the archive's, linked
// into a temporary directory.
func nsightTree(t *testing.T) string {
	dir := testenv.RealCUDA(t)
	base := filepath.Join(dir, "nsight-systems")
	if _, err := os.Stat(filepath.Join(base, ".complete")); err != nil {
		t.Fatalf("no nsight-systems in %s (run scripts/fetch-real-cuda.sh %s)", base, dir)
	}
	tree := filepath.Join(t.TempDir(), "nsight_systems-linux-x86_64-2022.4.2.1-archive")
	if out, err := exec.Command("cp", "-a", "--reflink=auto", filepath.Join(base, "root/usr/lib/nsight-systems"), tree).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return tree
}

// TestVendoredNsightSystems measures the vendored-library check on the
// real Nsight Systems tree against the hand list: recall must be 100%,
// and every library called vendored that is not on the list fails the
// test (precision 100%; there is no explained exception today).
func TestVendoredNsightSystems(t *testing.T) {
	f, err := facts.Detect(nsightTree(t))
	if err != nil {
		t.Fatal(err)
	}
	a := manifest.DetectedArchive{Archive: manifest.Archive{Package: "nsight_systems", Platform: "linux-x86_64"}, Features: f}
	r := vendored.CheckArchive(a, vendored.NVIDIASonames([]manifest.DetectedArchive{a}), sonameindex.Default())
	found := map[string]vendored.Library{}
	for _, v := range r.Vendored {
		found[strings.TrimPrefix(v.Path, "host-linux-x64/")] = v
	}
	var missed, extra []string
	for _, p := range nsightVendored {
		if _, ok := found[p]; !ok {
			missed = append(missed, p)
		}
	}
	for p := range found {
		if !slices.Contains(nsightVendored, p) {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	tp := len(nsightVendored) - len(missed)
	t.Logf("Nsight Systems: %d libraries, %d vendored on the hand list; found %d: recall %d/%d, precision %d/%d",
		len(f.Libraries), len(nsightVendored), len(found), tp, len(nsightVendored), tp, len(found))
	if len(missed) > 0 {
		t.Errorf("recall: not found vendored: %v", missed)
	}
	if len(extra) > 0 {
		t.Errorf("precision: called vendored, not on the hand list: %v", extra)
	}
	// The evidence the ELF gives for what the hand list says.
	core := found["libQt6Core.so.6"]
	if core.Upstream != "Qt6Core" || !slices.ContainsFunc(core.Evidence, func(e string) bool { return strings.HasPrefix(e, "version definitions: Qt_6") }) {
		t.Errorf("libQt6Core.so.6: upstream %q, evidence %q", core.Upstream, core.Evidence)
	}
	if len(core.NeededBy) == 0 {
		t.Error("libQt6Core.so.6: no library of the tree needs it")
	}
	if icu := found["libicuuc.so.71"]; icu.Upstream != "ICU" || icu.Index[0].How != sonameindex.MatchVersion {
		t.Errorf("libicuuc.so.71: %+v", icu)
	}
}

// TestVendoredNoNVIDIALibrary: on every other real tree (CUDA 11.8 and
// 12.5 from Debian, CUDA 13 wheels), NVIDIA's libraries are never called
// vendored: the check finds nothing at all there.
func TestVendoredNoNVIDIALibrary(t *testing.T) {
	dir := testenv.RealCUDA(t)
	trees := map[string]string{
		"CUDA 11.8": filepath.Join(dir, "root/usr/lib"),
		"CUDA 12.5": filepath.Join(dir, "cuda-12.5/root/usr"),
		"CUDA 13":   filepath.Join(dir, "cuda-13/root/nvidia/cu13"),
	}
	ix := sonameindex.Default()
	var archives []manifest.DetectedArchive
	for _, name := range []string{"CUDA 11.8", "CUDA 12.5", "CUDA 13"} {
		f, err := facts.Detect(trees[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		archives = append(archives, manifest.DetectedArchive{Archive: manifest.Archive{Package: name}, Features: f})
	}
	nvidia := vendored.NVIDIASonames(archives)
	for _, a := range archives {
		shared := countShared(a.Features)
		r := vendored.CheckArchive(a, nvidia, ix)
		t.Logf("%s: %d shared libraries, %d vendored, %d ties", a.Package, shared, len(r.Vendored), len(r.NVIDIA))
		if shared == 0 {
			t.Errorf("%s: no shared library detected: the check checked nothing", a.Package)
		}
		for _, v := range r.Vendored {
			t.Errorf("%s: %s called vendored: %s", a.Package, v.Path, fmt.Sprint(v.Evidence))
		}
	}
}

func countShared(f *features.Features) int {
	n := 0
	for _, l := range f.Libraries {
		if l.Kind == "shared" {
			n++
		}
	}
	return n
}
