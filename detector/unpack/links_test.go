package unpack_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// linkBomb is one file of size bytes and links hard links to it: a few
// kilobytes of tar.xz whose NAR holds the file links+1 times.
func linkBomb(size, links int) []E {
	es := []E{testarchive.B("t/big", bytes.Repeat([]byte{'x'}, size))}
	for i := range links {
		es = append(es, testarchive.H(fmt.Sprintf("t/l%04d", i), "t/big"))
	}
	return es
}

// TestHardLinksCountTheirBytes: the NAR (what Nix hashes, what detect
// reads) holds a hard-linked file once per name, so every link counts
// its bytes toward the size bound: 2,000 links to 1 MiB are 2 GiB, past
// the 1 GiB the ratio bound allows a small archive.
func TestHardLinksCountTheirBytes(t *testing.T) {
	data := testarchive.TarXz(linkBomb(1<<20, 2000))
	if len(data) > 64<<10 {
		t.Fatalf("the bomb is %d bytes, want a small archive", len(data))
	}
	st, err := mustRefuse(t, data, unpack.Options{}, "inflates past the size limit", `a hard link to "t/big" counts its 1048576 bytes again`)
	// Refused at the first link past 1 GiB, not after all 2,000.
	if !strings.Contains(err.Error(), `entry "t/l1023"`) {
		t.Errorf("refused at the wrong link: %v", err)
	}
	if st.Files != 1024 || st.Bytes != 1024<<20 {
		t.Errorf("%d files of %d bytes before the refusal, want the file and its first 1023 links, 1 GiB", st.Files, st.Bytes)
	}
	// Under the bound, the links are unpacked and counted.
	src := writeArchive(t, "ok", testarchive.TarXz(linkBomb(1000, 10)))
	st, uerr := unpack.Unpack(src, t.TempDir()+"/out", unpack.Options{})
	if uerr != nil || st.Bytes != 11*1000 || st.Files != 11 {
		t.Errorf("10 links to 1000 bytes: %+v, %v; want 11 files of 11000 bytes", st, uerr)
	}
	// --max-bytes alone bounds them as well.
	_, err = mustRefuse(t, testarchive.Tar(linkBomb(1000, 10)), unpack.Options{MaxBytes: 10_500, MaxRatio: -1}, "of 10500 bytes (--max-bytes")
	if !strings.Contains(err.Error(), `entry "t/l0009"`) {
		t.Errorf("refused at the wrong link: %v", err)
	}
}

// manyFiles are n small files.
func manyFiles(n int) []E {
	es := make([]E, n)
	for i := range es {
		es[i] = F(fmt.Sprintf("t/f%05d", i), "x")
	}
	return es
}

// TestMaxEntriesStopsAtOnce: a tar is refused at the first entry past
// --max-entries, a zip before its first entry (its central directory
// says how many there are), and headers that create nothing count too.
func TestMaxEntriesStopsAtOnce(t *testing.T) {
	opts := unpack.Options{MaxEntries: 1000}
	// t/ and 999 files make 1000; the next one is too many.
	st, err := mustRefuse(t, testarchive.Tar(manyFiles(5000)), opts, "more than 1000 entries")
	if !strings.Contains(err.Error(), `entry "t/f00999"`) {
		t.Errorf("tar refused at the wrong entry: %v", err)
	}
	if st.Files+st.Dirs != 1000 {
		t.Errorf("%d files and %d directories made, want the 1000 --max-entries allows", st.Files, st.Dirs)
	}
	st, _ = mustRefuse(t, testarchive.Zip(manyFiles(1001)), opts, "the zip's central directory lists 1001 entries, more than 1000 (--max-entries)")
	if st.Files+st.Dirs != 0 || unpack.WorkOf(st).Decoded != 0 {
		t.Errorf("%d files and %d directories made, %d bytes inflated, before the refusal; want nothing", st.Files, st.Dirs, unpack.WorkOf(st).Decoded)
	}
	// A zip whose entries fit but whose implicit parents do not is still
	// refused, as it goes.
	st, _ = mustRefuse(t, testarchive.Zip(manyFiles(1000)), opts, "more than 1000 entries")
	if st.Files+st.Dirs != 1000 {
		t.Errorf("%d files and %d directories made, want the 1000 --max-entries allows", st.Files, st.Dirs)
	}
	// Headers for the root and global headers create nothing but cost a
	// header's work each: refused at the 1001st, having read its header
	// (and, leaving room, one more).
	roots := make([]E, 2000)
	for i := range roots {
		roots[i] = D("./")
	}
	st, _ = mustRefuse(t, testarchive.Tar(roots), opts, "more than 1000 entries")
	decodedAtMost(t, st, 1002*512, "1002 headers of the 2000")
}
