package unpack_test

// Hostile and broken archives, all generated here: each must be refused
// (or accepted, when tar and xz accept it) with work in proportion to its
// size, and a refusal must leave nothing behind. The work is counted
// (unpack.WorkOf: bytes decoded, directory lookups, symlink steps; bytes
// and files written), never timed: a loaded machine changes the clock,
// not the count.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// threeFiles are entries whose content does not compress to nothing, so
// that a cut anywhere in the compressed stream falls inside file data.
func threeFiles() []E {
	var es []E
	for i := 0; i < 3; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 20_000; j++ {
			fmt.Fprintf(&b, "file %d line %d %x\n", i, j, j*7919+i*104729)
		}
		es = append(es, F(fmt.Sprintf("t/f%d", i), b.String()))
	}
	return es
}

// mustRefuse unpacks data and requires an error containing every want,
// naming the archive, leaving the output absent. It returns what the
// refused extraction counted, for the caller to bound.
func mustRefuse(t *testing.T, data []byte, opts unpack.Options, want ...string) (unpack.Stats, error) {
	t.Helper()
	src := writeArchive(t, "in", data)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	st, err := unpack.Unpack(src, out, opts)
	if err == nil {
		t.Fatalf("Unpack succeeded, want an error containing %q", want)
	}
	for _, w := range append(want, src) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	if names, _ := os.ReadDir(parent); len(names) != 0 {
		t.Errorf("a refused unpack left %v; tree: %v", names, listTree(t, out))
	}
	return st, err
}

func mustUnpack(t *testing.T, data []byte, opts unpack.Options) []string {
	t.Helper()
	tree, _ := mustUnpackStats(t, data, opts)
	return tree
}

// mustUnpackStats is mustUnpack giving the Stats too.
func mustUnpackStats(t *testing.T, data []byte, opts unpack.Options) ([]string, unpack.Stats) {
	t.Helper()
	src := writeArchive(t, "in", data)
	out := filepath.Join(t.TempDir(), "out")
	st, err := unpack.Unpack(src, out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return listTree(t, out), st
}

// decodedAtMost fails when the extraction behind st decoded more than
// most bytes: a broken stream must not make a decoder produce more than
// the archive held, nor a bomb more than the size bound.
func decodedAtMost(t *testing.T, st unpack.Stats, most int64, what string) {
	t.Helper()
	if got := unpack.WorkOf(st).Decoded; got > most {
		t.Errorf("decoded %d bytes, more than %d (%s)", got, most, what)
	}
}

// targetComponents is the number of components of the symlink targets
// of es: resolving every link once steps through that many.
func targetComponents(es []E) int {
	n := 0
	for _, e := range es {
		if e.Kind == testarchive.Symlink {
			n += strings.Count(e.Link, "/") + 1
		}
	}
	return n
}

// linearSymlinks fails unless resolving the links of es stepped through
// at most twice their targets' components (a link's target is walked
// when the link is checked, and once more when a lookup goes through it).
func linearSymlinks(t *testing.T, st unpack.Stats, es []E) {
	t.Helper()
	components := targetComponents(es)
	if got := unpack.WorkOf(st).SymlinkSteps; got > 2*components {
		t.Errorf("resolving the symlinks stepped through %d components, more than twice the %d of their targets", got, components)
	}
}

func xzRaw(t *testing.T, data []byte, blockSize int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{BlockSize: blockSize}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipRaw(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTruncatedStreams cuts every format at 10 %, 20 % … 99 %: gzip -t,
// bzip2 -t and xz -t reject all of these, and so must Unpack.
func TestTruncatedStreams(t *testing.T) {
	entries := threeFiles()
	formats := map[string][]byte{
		"tar.gz":        testarchive.TarGz(entries),
		"tar.xz":        testarchive.TarXz(entries),
		"tar.xz blocks": testarchive.TarXzBlocks(entries, 8<<10),
		"zip":           testarchive.Zip(entries),
		"tar":           testarchive.Tar(entries),
		"tar.zst":       testarchive.TarZst(entries),
	}
	// The bzip2 fixture needs the bzip2 program (the Nix sandbox has none).
	switch bz2, err := testarchive.TarBz2(entries); {
	case errors.Is(err, exec.ErrNotFound):
		testenv.NotChecked(t, fmt.Sprintf("no bzip2 to build the tar.bz2 fixture (apt-get install bzip2): %v", err))
	case err != nil:
		t.Fatal(err)
	default:
		formats["tar.bz2"] = bz2
	}
	// A cut stream decodes to no more than the whole tar: no decoder
	// invents data past the cut (one that padded it with zeros would
	// read on to the size bound).
	tarSize := int64(len(testarchive.Tar(entries)))
	for name, data := range formats {
		for _, pct := range []int{10, 30, 50, 70, 90, 99} {
			t.Run(fmt.Sprintf("%s cut at %d%%", name, pct), func(t *testing.T) {
				st, _ := mustRefuse(t, data[:len(data)*pct/100], unpack.Options{})
				decodedAtMost(t, st, tarSize, "the whole tar")
			})
		}
	}
}

// TestStreamErrorsSayWhere: the error of a truncated stream says where
// it ended, by position and entry.
func TestStreamErrorsSayWhere(t *testing.T) {
	data := testarchive.TarGz(threeFiles())
	st, _ := mustRefuse(t, data[:len(data)/2], unpack.Options{},
		"corrupt or truncated tar.gz stream", "bytes of tar data", `entry "t/f1"`, "input read to byte")
	decodedAtMost(t, st, int64(len(testarchive.Tar(threeFiles()))), "the whole tar")
}

// TestGzipIntegrity: Go's gzip reader checks the CRC and size only when
// read to the end; Unpack must read it there.
func TestGzipIntegrity(t *testing.T) {
	c := brokenCopies(threeFiles(), testarchive.TarGz)
	data, n, flip, refuse := c.data, len(c.data), c.flip, c.refuse
	t.Run("no trailer", func(t *testing.T) { refuse(t, data[:n-8], "truncated tar.gz", "unexpected EOF") })
	t.Run("flipped CRC", func(t *testing.T) { refuse(t, flip(n-8), "gzip: invalid checksum") })
	t.Run("flipped size", func(t *testing.T) { refuse(t, flip(n-2), "gzip: invalid checksum") })
	t.Run("flipped data byte", func(t *testing.T) { refuse(t, flip(n/2)) })

	// A tar cut after the first file, then gzipped whole: the gzip
	// stream is fine, the tar lacks its end-of-archive block.
	first := testarchive.Tar(threeFiles()[:1])
	t.Run("tar cut after the first file", func(t *testing.T) {
		st, _ := mustRefuse(t, gzipRaw(t, first[:len(first)-1024]), unpack.Options{},
			"without its end-of-archive block", `entry "t/f0"`)
		decodedAtMost(t, st, int64(len(first)-1024), "the cut tar")
	})

	// gzip -d accepts several members one after another.
	tarData := testarchive.Tar(threeFiles())
	half := len(tarData) / 2
	multi := append(gzipRaw(t, tarData[:half]), gzipRaw(t, tarData[half:])...)
	if diff := cmp.Diff(mustUnpack(t, testarchive.TarGz(threeFiles()), unpack.Options{}), mustUnpack(t, multi, unpack.Options{})); diff != "" {
		t.Errorf("multi-member gzip (-single +multi):\n%s", diff)
	}
}

// TestMultiStreamXz: xz accepts streams one after another, with stream
// padding between them; so must both decoding paths.
func TestMultiStreamXz(t *testing.T) {
	tarData := testarchive.Tar(threeFiles())
	half := len(tarData) / 2
	want := mustUnpack(t, testarchive.TarXz(threeFiles()), unpack.Options{})
	variants := map[string][]byte{
		"two multi-block streams": append(xzRaw(t, tarData[:half], 8<<10), xzRaw(t, tarData[half:], 8<<10)...),
		"with padding":            append(append(xzRaw(t, tarData[:half], 8<<10), make([]byte, 8)...), xzRaw(t, tarData[half:], 8<<10)...),
		"single-block streams":    append(xzRaw(t, tarData[:half], 0), xzRaw(t, tarData[half:], 0)...),
	}
	for name, data := range variants {
		for _, threads := range []int{0, 4, 1} {
			t.Run(fmt.Sprintf("%s, %d threads", name, threads), func(t *testing.T) {
				if diff := cmp.Diff(want, mustUnpack(t, data, unpack.Options{Threads: threads})); diff != "" {
					t.Errorf("(-one stream +several):\n%s", diff)
				}
			})
		}
	}
	bad := append(xzRaw(t, tarData[:half], 8<<10), make([]byte, 3)...)
	bad = append(bad, xzRaw(t, tarData[half:], 8<<10)...)
	t.Run("padding not a multiple of four", func(t *testing.T) {
		st, _ := mustRefuse(t, bad, unpack.Options{}, "xz")
		decodedAtMost(t, st, int64(len(tarData)), "the whole tar")
	})
}

// TestPAXGlobalHeader: `git archive` writes a global header with the
// commit id; GNU tar extracts nothing for it.
func TestPAXGlobalHeader(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
		PAXRecords: map[string]string{"comment": "0123456789abcdef0123456789abcdef01234567"}}); err != nil {
		t.Fatal(err)
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "t/a", Mode: 0o644, Size: 2}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("hi"))
	tw.Close()
	if diff := cmp.Diff([]string{`a 644 "hi"`}, mustUnpack(t, buf.Bytes(), unpack.Options{})); diff != "" {
		t.Error(diff)
	}
}

// TestRefusedUnpackLeavesNothing: links that point outside once the top
// directory is stripped are refused, and everything written is removed,
// without following any link while removing.
func TestRefusedUnpackLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	sentinel := filepath.Join(parent, "keep")
	if err := os.WriteFile(sentinel, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]E{
		"up after strip":   {D("t/"), F("t/f", "x"), L("t/up", "..")},
		"through a link":   {D("t/"), D("t/d/"), L("t/d/up", ".."), L("t/x", "d/up/.."), F("t/f", "x")},
		"late device node": {D("t/"), L("t/up", ".."), F("t/f", "x"), {Name: "t/dev", Kind: testarchive.CharDev, Mode: 0o644}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			src := writeArchive(t, "in.tar", testarchive.Tar(entries))
			for _, preexisting := range []bool{false, true} {
				out := filepath.Join(parent, "out")
				if preexisting {
					if err := os.Mkdir(out, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := unpack.Unpack(src, out, unpack.Options{}); err == nil {
					t.Fatalf("Unpack succeeded: %v", listTree(t, out))
				}
				names, _ := os.ReadDir(out)
				if len(names) != 0 || (!preexisting && !errors.Is(statErr(out), os.ErrNotExist)) {
					t.Errorf("preexisting=%v: output left with %v", preexisting, names)
				}
				os.RemoveAll(out)
				if b, err := os.ReadFile(sentinel); err != nil || string(b) != "x" {
					t.Fatalf("the file beside the output is gone: %v", err)
				}
			}
		})
	}
}

func statErr(p string) error {
	_, err := os.Lstat(p)
	return err
}

// TestSymlinkChains: links between the root and a directory 1000 levels
// deep, each legal on its own, took 100 s (81 KB tar); each link is now
// resolved once, so the steps of the resolution are bounded by the
// targets' components. Chains longer than 40 links are refused as the
// kernel's ELOOP would.
func TestSymlinkChains(t *testing.T) {
	const depth, links = 1000, 300
	up := strings.TrimSuffix(strings.Repeat("../", depth), "/")
	entries := []E{D(testarchive.DeepName(depth) + "/")}
	for i := 0; i < links; i++ {
		entries = append(entries,
			L(fmt.Sprintf("%s/u%d", testarchive.DeepName(depth), i), fmt.Sprintf("%s/r%d", up, i)),
			L(fmt.Sprintf("r%d", i), fmt.Sprintf("%s/u%d", testarchive.DeepName(depth), i+1)))
	}
	data := testarchive.TarXz(entries)
	t.Logf("archive: %d bytes", len(data))
	// Refused at its first entry: the decoder went no further than that
	// entry's headers (its name of 2000 bytes, then the 512-byte header).
	st, _ := mustRefuse(t, data, unpack.Options{}, "path components, more than 256")
	decodedAtMost(t, st, 4<<10, "the first entry's headers")
	st, _ = mustRefuse(t, data, unpack.Options{MaxDepth: 2000}, "too many levels of symbolic links")
	linearSymlinks(t, st, entries)

	// Short chains through the deep directory are fine.
	ok := []E{D(testarchive.DeepName(depth) + "/"), F("f", "x")}
	for i := 0; i < links; i++ {
		ok = append(ok, L(fmt.Sprintf("%s/u%d", testarchive.DeepName(depth), i), up+"/f"),
			L(fmt.Sprintf("r%d", i), fmt.Sprintf("%s/u%d", testarchive.DeepName(depth), i)))
	}
	_, st = mustUnpackStats(t, testarchive.TarXz(ok), unpack.Options{MaxDepth: 2000, KeepTopLevel: true})
	linearSymlinks(t, st, ok)
	if w := unpack.WorkOf(st); w.SymlinkSteps < targetComponents(ok) {
		t.Errorf("resolving the symlinks stepped through %d components, fewer than the %d of their targets: not counted?", w.SymlinkSteps, targetComponents(ok))
	}
}

// TestDeepEntries: 2000 entries at depth 1900 took 50 s when every entry
// re-walked its parents; the default depth limit refuses them at once.
// Each entry now costs one lookup of its directory, and each directory
// one more when it is created.
func TestDeepEntries(t *testing.T) {
	const depth, files = 1900, 2000
	var entries []E
	for i := 0; i < files; i++ {
		entries = append(entries, F(fmt.Sprintf("%s/f%d", testarchive.DeepName(depth-1), i), ""))
	}
	data := testarchive.TarXz(entries)
	st, _ := mustRefuse(t, data, unpack.Options{}, "more than 256 (--max-depth)")
	decodedAtMost(t, st, 8<<10, "the first entry's headers")
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	src := writeArchive(t, "in", data)
	out := filepath.Join(t.TempDir(), "out")
	st, err := unpack.Unpack(src, out, unpack.Options{MaxDepth: 4000})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 512<<20 {
		t.Errorf("allocated %d MiB", grew>>20)
	}
	if st.Files != files || st.Dirs != depth-1 {
		t.Errorf("stats %+v", st)
	}
	// One lookup per entry and per directory made (3,899 here); twice that
	// leaves room, re-walking the parents would cost millions.
	if got, most := unpack.WorkOf(st).DirLookups, 2*(files+st.Dirs); got > most {
		t.Errorf("%d directory lookups for %d entries and %d directories, want at most %d: not linear", got, files, st.Dirs, most)
	}
}

// TestMaxEntriesCountsParents: one entry deep down creates all its
// parents; they count against --max-entries.
func TestMaxEntriesCountsParents(t *testing.T) {
	data := testarchive.Tar([]E{F(testarchive.DeepName(200)+"/f", "x")})
	st, _ := mustRefuse(t, data, unpack.Options{MaxEntries: 10}, "more than 10 entries", "implicit parent directories")
	// Refused at the eleventh parent, not after making all 200.
	if st.Dirs != 10 {
		t.Errorf("%d directories made, want the 10 --max-entries allows", st.Dirs)
	}
}

// tarBlock is a ustar header block, checksum included.
func tarBlock(name string, typeflag byte, size int) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func padBlock(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

func paxRecord(k, v string) string {
	r := " " + k + "=" + v + "\n"
	n := len(r) + 1
	for len(fmt.Sprint(n))+len(r) != n {
		n++
	}
	return fmt.Sprint(n) + r
}

// sparseTar is a PAX (GNU 1.0) sparse file that claims size bytes of
// holes and one data byte: 3.5 KB on disk.
func sparseTar(size int64) []byte {
	records := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
		paxRecord("GNU.sparse.name", "t/s") + paxRecord("GNU.sparse.realsize", fmt.Sprint(size))
	body := make([]byte, 512)
	copy(body, fmt.Sprintf("1\n%d\n1\n", size-1))
	body = append(body, 'x')
	var out []byte
	out = append(out, tarBlock("t/PaxHeaders/s", 'x', len(records))...)
	out = append(out, padBlock([]byte(records))...)
	out = append(out, tarBlock("t/GNUSparseFile.0/s", '0', len(body))...)
	out = append(out, padBlock(body)...)
	return append(out, make([]byte, 1024)...)
}

// TestSparseCountsFullSize: a 3.5 KB sparse tar claiming 2 GiB is refused
// before anything is written, by the default bound relative to its size.
func TestSparseCountsFullSize(t *testing.T) {
	if got := mustUnpack(t, sparseTar(4096), unpack.Options{}); len(got) != 1 || !strings.HasPrefix(got[0], "s 644") {
		t.Fatalf("small sparse file: %v", got)
	}
	data := sparseTar(2 << 30)
	st, _ := mustRefuse(t, data, unpack.Options{}, `entry "t/s"`, "the entry declares 2147483648 bytes")
	if st.Bytes != 0 {
		t.Errorf("%d bytes written before the refusal, want none", st.Bytes)
	}
}

// overlappingZip is a zip whose central directory lists n entries that
// all point at the one compressed blob of a highly compressible file.
func overlappingZip(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("t/a0000")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(make([]byte, 1<<20))
	zw.Close()
	data := buf.Bytes()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	cdOffset := int(binary.LittleEndian.Uint32(data[eocd+16:]))
	record := data[cdOffset:eocd]
	out := bytes.Clone(data[:cdOffset])
	for i := 0; i < n; i++ {
		r := bytes.Clone(record)
		copy(r[46:], fmt.Sprintf("t/a%04d", i))
		out = append(out, r...)
	}
	end := bytes.Clone(data[eocd:])
	binary.LittleEndian.PutUint16(end[8:], uint16(n))
	binary.LittleEndian.PutUint16(end[10:], uint16(n))
	binary.LittleEndian.PutUint32(end[12:], uint32(n*len(record)))
	return append(out, end...)
}

// TestZipOverlap: entries sharing their data are a zip bomb.
func TestZipOverlap(t *testing.T) {
	if got := mustUnpack(t, overlappingZip(t, 1), unpack.Options{}); len(got) != 1 {
		t.Fatalf("one entry: %v", got)
	}
	// Refused from the central directory, before a byte is inflated.
	st, _ := mustRefuse(t, overlappingZip(t, 1000), unpack.Options{}, "overlap", "zip bomb")
	decodedAtMost(t, st, 0, "nothing before the refusal")
}

// zstdHeader is a zstd frame of one empty raw block whose header asks for
// a window of 2^log bytes (no content size, no checksum).
func zstdHeader(log int) []byte {
	return []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, byte((log - 10) << 3), 0x01, 0x00, 0x00}
}

// TestZstdIntegrity: what `zstd -t` rejects, Unpack refuses; what it
// accepts (several frames, skippable frames), Unpack reads alike.
func TestZstdIntegrity(t *testing.T) {
	entries := threeFiles()
	c := brokenCopies(entries, testarchive.TarZst)
	data, n, flip, refuse := c.data, len(c.data), c.flip, c.refuse
	t.Run("flipped checksum", func(t *testing.T) { refuse(t, flip(n-2), "tar.zst", "zstd") })
	t.Run("flipped data byte", func(t *testing.T) { refuse(t, flip(n/2), "zstd") })
	t.Run("no checksum", func(t *testing.T) { refuse(t, data[:n-4], "tar.zst") })
	t.Run("garbage after the last frame", func(t *testing.T) {
		refuse(t, append(bytes.Clone(data), "garbage!"...), "after the tar trailer", "zstd")
	})
	// A tar cut after the first file, compressed whole: the zstd stream
	// is fine, the tar lacks its end-of-archive block.
	first := testarchive.Tar(entries[:1])
	t.Run("tar cut after the first file", func(t *testing.T) {
		st, _ := mustRefuse(t, testarchive.ZstdFrames(first[:len(first)-1024]), unpack.Options{},
			"without its end-of-archive block", `entry "t/f0"`)
		decodedAtMost(t, st, int64(len(first)-1024), "the cut tar")
	})

	want := mustUnpack(t, data, unpack.Options{})
	tarData := testarchive.Tar(entries)
	half := len(tarData) / 2
	skippable := []byte{0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'n', 'o', 't', 'e'}
	for name, d := range map[string][]byte{
		"two frames":                testarchive.ZstdFrames(tarData[:half], tarData[half:]),
		"a skippable frame between": append(append(testarchive.ZstdFrames(tarData[:half]), skippable...), testarchive.ZstdFrames(tarData[half:])...),
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(want, mustUnpack(t, d, unpack.Options{})); diff != "" {
				t.Errorf("(-one frame +%s):\n%s", name, diff)
			}
		})
	}
}

// TestZstdWindowBound: a frame header asking for a window over
// MaxZstdWindow (128 MiB, what `zstd -d` allows without --long) is
// refused at once, before the decoder allocates it; one at the bound
// passes the decoder. The zstd tool, when present, draws the line at
// the same place.
func TestZstdWindowBound(t *testing.T) {
	if unpack.MaxZstdWindow != 1<<27 {
		t.Fatalf("MaxZstdWindow = %d; this test's frames are built for 2^27", unpack.MaxZstdWindow)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	mustRefuse(t, zstdHeader(31), unpack.Options{}, "tar.zst", "window size exceeded")
	mustRefuse(t, zstdHeader(28), unpack.Options{}, "window size exceeded")
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 64<<20 {
		t.Errorf("refusing two oversized windows allocated %d MiB", got>>20)
	}
	// At the bound the frame decodes (to nothing): the refusal is the
	// tar's. The decoder holds the window (and one block) from the first
	// block on: that, not the archive's size, bounds a zstd frame's memory.
	runtime.ReadMemStats(&ms)
	before = ms.TotalAlloc
	_, err := mustRefuse(t, zstdHeader(27), unpack.Options{}, "without its end-of-archive block")
	if strings.Contains(err.Error(), "window") {
		t.Errorf("a 128 MiB window was refused: %v", err)
	}
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > unpack.MaxZstdWindow+32<<20 {
		t.Errorf("a frame at the window bound allocated %d MiB, want at most the window and 32 MiB", got>>20)
	}
	if _, lerr := exec.LookPath("zstd"); lerr != nil {
		testenv.NotChecked(t, "no zstd tool to confirm where it draws the window line (apt-get install zstd)")
		return
	}
	for log, ok := range map[int]bool{27: true, 28: false, 31: false} {
		cmd := exec.Command("zstd", "-t", "-q")
		cmd.Stdin = bytes.NewReader(zstdHeader(log))
		if err := cmd.Run(); (err == nil) != ok {
			t.Errorf("zstd -t on a 2^%d window: %v, want success %v", log, err, ok)
		}
	}
}

// TestZstdBomb: a small .tar.zst of one huge run of zeros stops at the
// size limit, having decoded and written as much as the limit, not the
// claimed size.
func TestZstdBomb(t *testing.T) {
	var tarData bytes.Buffer
	tw := tar.NewWriter(&tarData)
	const size = 256 << 20
	if err := tw.WriteHeader(&tar.Header{Name: "t/zeros", Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for i := 0; i < size/len(zeros); i++ {
		tw.Write(zeros)
	}
	tw.Close()
	bomb := testarchive.ZstdFrames(tarData.Bytes())
	if len(bomb) > 1<<20 {
		t.Fatalf("the bomb is %d bytes; want a small one", len(bomb))
	}
	const limit = 8 << 20
	st, _ := mustRefuse(t, bomb, unpack.Options{MaxBytes: limit}, "limit exceeded", "8388608 bytes")
	// The limit, one byte past it (how the copy finds it is crossed) and
	// the file's header.
	decodedAtMost(t, st, limit+1+512, "the size limit")
	if st.Bytes > limit+1 {
		t.Errorf("%d bytes written, past the %d-byte limit", st.Bytes, limit)
	}
}

// corruption is a compressed archive of some entries to break: flip
// copies it with one bit of byte i flipped, and refuse wants Unpack to
// refuse a broken copy, naming want, having decoded at most the whole tar.
type corruption struct {
	data    []byte
	tarSize int64
}

func brokenCopies(entries []E, compress func([]E) []byte) corruption {
	return corruption{data: compress(entries), tarSize: int64(len(testarchive.Tar(entries)))}
}

func (c corruption) flip(i int) []byte {
	d := bytes.Clone(c.data)
	d[i] ^= 0x01
	return d
}

func (c corruption) refuse(t *testing.T, data []byte, want ...string) {
	t.Helper()
	st, _ := mustRefuse(t, data, unpack.Options{}, want...)
	decodedAtMost(t, st, c.tarSize, "the whole tar")
}
