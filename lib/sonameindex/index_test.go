package sonameindex_test

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

func read(t *testing.T, text string) *sonameindex.Index {
	t.Helper()
	ix := sonameindex.New()
	if err := ix.Read(strings.NewReader(text), "test.sonames"); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestLineShapes: every line shape of docs/vendored.md, with comments,
// blank lines and the provider directive.
func TestLineShapes(t *testing.T) {
	ix := read(t, `# a comment

libfoo.so.1
#! provider Debian bookworm main
libbar.so.2
libqgif.so imageformats/
libssl.so.3 openssl
openssl.out                                   1,234,567 r /nix/store/aaaa-openssl-3.0.13/lib/libcrypto.so.3
(qt6.qtbase.out)                                 40,960 x /nix/store/bbbb-qtbase-6.7.0/lib/qt-6/plugins/imageformats/libqjpeg.so
zlib.out                                                0 s /nix/store/cccc-zlib-1.3/lib/libz.so.1
zlib.out                                                0 d /nix/store/cccc-zlib-1.3/lib/libz.so.d
zlib.out                                                0 r /nix/store/cccc-zlib-1.3/lib/libz.so.1.3.debug
`)
	look := func(name, folder string) []sonameindex.Match { return ix.Lookup(name, folder) }
	m := func(name, folder, provider, how string) []sonameindex.Match {
		return []sonameindex.Match{{Entry: sonameindex.Entry{Name: name, Folder: folder, Provider: provider}, How: how}}
	}
	checks := []struct {
		name, folder string
		want         []sonameindex.Match
	}{
		{"libfoo.so.1", "", m("libfoo.so.1", "", "test.sonames", "exact")},
		{"libbar.so.2", "x", m("libbar.so.2", "", "Debian bookworm main", "exact")},
		{"libqgif.so", "imageformats", m("libqgif.so", "imageformats", "Debian bookworm main", "exact")},
		{"libqgif.so", "ImageFormats", m("libqgif.so", "imageformats", "Debian bookworm main", "exact")},
		{"libqgif.so", "host-linux-x64", nil},
		{"libssl.so.3", "", m("libssl.so.3", "", "openssl", "exact")},
		{"libcrypto.so.3", "", m("libcrypto.so.3", "", "openssl.out", "exact")},
		{"libqjpeg.so", "imageformats", m("libqjpeg.so", "imageformats", "qt6.qtbase.out", "exact")},
		{"libz.so.1", "", m("libz.so.1", "", "zlib.out", "exact")},
		{"libz.so.1.3.debug", "", m("libz.so.1", "", "zlib.out", "otherVersion")},
		{"libcrypto.so.1.1", "", m("libcrypto.so.3", "", "openssl.out", "otherVersion")},
		{"libfoo-shared.so", "", m("libfoo.so.1", "", "test.sonames", "renamed")},
		{"libfoo_shared.so", "", m("libfoo.so.1", "", "test.sonames", "renamed")},
		{"libnvjpeg.so.11", "", nil},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, look(c.name, c.folder)); diff != "" {
			t.Errorf("Lookup(%q, %q) (-want +got):\n%s", c.name, c.folder, diff)
		}
	}
	if ix.Len() != 7 {
		t.Errorf("Len = %d, want 7", ix.Len())
	}
}

// TestNixLocateOutsideLibSkipped: what docs/vendored.md's nix-locate
// recipe lists besides a store path's own lib/ (a library below another
// folder's lib/, a file that is a store path of its own) is skipped and
// counted, and the lines around it are read.
func TestNixLocateOutsideLibSkipped(t *testing.T) {
	ix := read(t, `openssl.out 1 r /nix/store/aaaa-openssl-3.0.13/lib/libcrypto.so.3
jetbrains.idea 2 r /nix/store/bbbb-idea-2024.1/idea/lib/libpty.so
(vscode.out) 3 r /nix/store/cccc-vscode-1.90/share/vscode/resources/app/node_modules/x/lib/libnode.so.1
x.out 4 r /nix/store/dddd-libx.so
zlib.out 5 s /nix/store/eeee-zlib-1.3/lib/libz.so.1
`)
	if ix.Len() != 2 || ix.Skipped() != 3 {
		t.Errorf("Len, Skipped = %d, %d; want 2, 3", ix.Len(), ix.Skipped())
	}
	if len(ix.Lookup("libz.so.1", "")) != 1 || len(ix.Lookup("libpty.so", "lib")) != 0 {
		t.Errorf("libz.so.1: %v, libpty.so: %v", ix.Lookup("libz.so.1", ""), ix.Lookup("libpty.so", "lib"))
	}
}

// TestBadLines: each bad line is an error naming the source and line.
func TestBadLines(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"libfoo.so.1\nfoo.txt\n", "test.sonames line 2: \"foo.txt\" is not a library name"},
		{"a b c\n", "line 1: neither"},
		{"#! source x\n", "line 1: unknown directive"},
		{"x.out 12k r /nix/store/a-x/lib/libx.so\n", "line 1: nix-locate line: size \"12k\""},
		{"x.out 1 q /nix/store/a-x/lib/libx.so\n", "type \"q\""},
		{"libfoo.so\n" + strings.Repeat("x", sonameindex.MaxLineLen+1), "line 2: longer than 65536 bytes"},
	} {
		err := sonameindex.New().Read(strings.NewReader(c.text), "test.sonames")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%.30q) = %v, want %q", c.text, err, c.want)
		}
	}
}

// TestDefault: the embedded index reads and holds what the real-data
// tests rely on (Qt 6, ICU, a plugin bound to its folder) and none of
// NVIDIA's CUDA libraries (Debian ships them in non-free, not in main).
func TestDefault(t *testing.T) {
	ix := sonameindex.Default()
	if ix.Len() < 10000 {
		t.Fatalf("default index has %d entries", ix.Len())
	}
	for _, n := range []string{"libQt6Core.so.6", "libicuuc.so.72", "libstdc++.so.6", "libssh.so.4", "libcrypto.so.3", "libOpenCL.so.1"} {
		if len(ix.Lookup(n, "")) == 0 {
			t.Errorf("%s not in the default index", n)
		}
	}
	if len(ix.Lookup("libqgif.so", "")) != 0 || len(ix.Lookup("libqgif.so", "imageformats")) == 0 {
		t.Error("libqgif.so is not bound to imageformats/")
	}
	for _, n := range []string{"libcudart.so.12", "libcublas.so.12", "libnvrtc.so.12", "libcufft.so.11", "libnvJitLink.so.12", "libcupti.so.12"} {
		if m := ix.Lookup(n, ""); len(m) != 0 {
			t.Errorf("NVIDIA's %s in the default index: %v", n, m)
		}
	}
}

// lines is an endless-looking reader of index lines: n lines cycling
// through distinct names.
type lines struct {
	left, i, distinct int
	buf               []byte
}

func (l *lines) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		if l.left <= 0 {
			return 0, io.EOF
		}
		l.buf = fmt.Appendf(l.buf[:0], "pkg%d.out %d r /nix/store/%032d-pkg-1.0/lib/libname%d.so.1\n", l.i%l.distinct, l.i, l.i, l.i%l.distinct)
		l.left -= len(l.buf)
		l.i++
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// TestLargeIndexBounded: a 100 MB nix-locate listing of 1,000 distinct
// libraries streams: the heap afterwards holds its entries, a few hundred
// kilobytes, not the file.
func TestLargeIndexBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB of index lines")
	}
	ix, grown, err := readHeld(&lines{left: 100 << 20, distinct: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 1000 {
		t.Errorf("Len = %d, want 1000", ix.Len())
	}
	if grown > 4<<20 {
		t.Errorf("heap grew by %d bytes reading a 100 MB index of 1000 entries", grown)
	}
}

// readHeld reads src, named "big", into a new index, and measures what
// the index holds: the heap's growth after a collection.
func readHeld(src io.Reader) (ix *sonameindex.Index, grown int64, err error) {
	ix = sonameindex.New()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = ix.Read(src, "big")
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ix)
	return ix, int64(after.HeapAlloc) - int64(before.HeapAlloc), err
}

// names streams n index lines of distinct names, one a line.
type names struct{ i, n int }

func (r *names) Read(p []byte) (int, error) {
	if r.i == r.n {
		return 0, io.EOF
	}
	k := 0
	for r.i < r.n && len(p)-k >= 32 {
		k += copy(p[k:], fmt.Appendf(p[k:k], "libname%d.so.1\n", r.i))
		r.i++
	}
	return k, nil
}

// TestEntryLimitBeforeMemory: an index of 2.2 million distinct names
// (past MaxEntries) is refused at the first line too many, and what the
// index holds then, all of MaxEntries, is at most 200 bytes an entry:
// 420 MB, well under a 2 GB address-space limit. (A map of entries and a
// slice per name held 816 MB, and with the garbage of the reading the
// process ran out of memory under `ulimit -v 2097152` before refusing.)
func TestEntryLimitBeforeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("2.2 million index lines")
	}
	src := &names{n: 2_200_000}
	ix, grown, err := readHeld(src)
	want := fmt.Sprintf("big line %d: more than %d entries", sonameindex.MaxEntries+1, sonameindex.MaxEntries)
	if err == nil || err.Error() != "soname index "+want {
		t.Fatalf("Read = %v, want %q", err, want)
	}
	if src.i > sonameindex.MaxEntries+100_000 {
		t.Errorf("read %d lines before refusing at %d", src.i, sonameindex.MaxEntries+1)
	}
	if ix.Len() != sonameindex.MaxEntries {
		t.Errorf("Len = %d, want %d", ix.Len(), sonameindex.MaxEntries)
	}
	t.Logf("%d entries: %d MB, %d bytes an entry", ix.Len(), grown>>20, grown/int64(ix.Len()))
	if grown > 200*sonameindex.MaxEntries {
		t.Errorf("the index holds %d MB at its %d entries, more than 200 bytes an entry", grown>>20, sonameindex.MaxEntries)
	}
}

func FuzzRead(f *testing.F) {
	f.Add("libfoo.so.1\n#! provider x\nlibqgif.so imageformats/\nopenssl.out 1,2 r /nix/store/a-b/lib/libssl.so.3\n")
	f.Add("(x) 0 s /nix/store/a/lib/x/libz.so\n\r\n#\n")
	f.Fuzz(func(t *testing.T, text string) {
		ix := sonameindex.New()
		_ = ix.Read(strings.NewReader(text), "fuzz")
		if ix.Len() > strings.Count(text, "\n")+1 {
			t.Fatalf("%d entries from %d lines", ix.Len(), strings.Count(text, "\n")+1)
		}
		for _, name := range []string{"libfoo.so.1", "libssl.so.3", "libz.so"} {
			for _, m := range ix.Lookup(name, "x") {
				if sonameindex.Stem(m.Name) != sonameindex.Stem(name) && m.How != sonameindex.MatchRenamed {
					t.Fatalf("Lookup(%q) matched %q", name, m.Name)
				}
			}
		}
	})
}

// TestManyProvidersOfOneName: an index naming one library with 1,000
// providers, each twice, keeps the first MaxPerName of them and counts
// the lines of the rest, so a
// repeated name costs neither quadratic reading nor a lookup as long as
// the file.
func TestManyProvidersOfOneName(t *testing.T) {
	var b strings.Builder
	const n = 1000
	for i := range n {
		fmt.Fprintf(&b, "libfoo.so.1 provider%d\nlibfoo.so.1 provider%d\n", i, i)
	}
	ix := read(t, b.String())
	if ix.Len() != sonameindex.MaxPerName || ix.Dropped() != 2*(n-sonameindex.MaxPerName) {
		t.Errorf("Len, Dropped = %d, %d; want %d, %d", ix.Len(), ix.Dropped(), sonameindex.MaxPerName, 2*(n-sonameindex.MaxPerName))
	}
	if got := len(ix.Lookup("libfoo.so.1", "")); got != sonameindex.MaxPerName {
		t.Errorf("Lookup returned %d entries, want %d", got, sonameindex.MaxPerName)
	}
}
