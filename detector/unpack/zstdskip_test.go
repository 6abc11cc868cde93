package unpack_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// skippableFrame is a zstd skippable frame (RFC 8878 3.1.2) with magic
// 0x184D2A50+nibble and the given user data.
func skippableFrame(nibble byte, data []byte) []byte {
	out := binary.LittleEndian.AppendUint32(nil, 0x184D2A50|uint32(nibble))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(data)))
	return append(out, data...)
}

// TestZstdSkippableFrames: the spec allows a skippable frame anywhere in
// a stream, first included, with any of its 16 magic numbers. Each such
// stream unpacks to the same tree as the plain one, and `zstd -t` (when
// installed) agrees it is valid.
func TestZstdSkippableFrames(t *testing.T) {
	entries := threeFiles()
	tarData := testarchive.Tar(entries)
	want := mustUnpack(t, testarchive.ZstdFrames(tarData), unpack.Options{})
	half := len(tarData) / 2
	first, second := testarchive.ZstdFrames(tarData[:half]), testarchive.ZstdFrames(tarData[half:])
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := map[string][]byte{
		"skippable first":          cat(skippableFrame(0, []byte("note")), first, second),
		"skippable first, magic F": cat(skippableFrame(0xF, []byte("x")), first, second),
		"empty skippable first":    cat(skippableFrame(7, nil), first, second),
		"two skippable first":      cat(skippableFrame(1, []byte("a")), skippableFrame(2, bytes.Repeat([]byte{0}, 600)), first, second),
		"skippable everywhere":     cat(skippableFrame(3, []byte("a")), first, skippableFrame(4, []byte("b")), second, skippableFrame(5, []byte("c"))),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if got := unpack.DetectFormat(data); got != unpack.FormatTarZst {
				t.Errorf("DetectFormat = %s, want tar.zst", got)
			}
			if diff := cmp.Diff(want, mustUnpack(t, data, unpack.Options{})); diff != "" {
				t.Errorf("(-plain +%s):\n%s", name, diff)
			}
		})
	}
	// A skippable frame followed by something that is not zstd is refused
	// by the decoder, naming zstd.
	t.Run("skippable then xz", func(t *testing.T) {
		mustRefuse(t, cat(skippableFrame(0, []byte("note")), testarchive.TarXz(entries)), unpack.Options{}, "zstd")
	})

	zstdCLI, err := exec.LookPath("zstd")
	if err != nil {
		testenv.NotChecked(t, "no zstd CLI to confirm the streams are valid (apt-get install zstd)")
		return
	}
	// An archive the real zstd tool wrote, with skippable frames around it.
	dir := t.TempDir()
	tarPath := filepath.Join(dir, "a.tar")
	if err := os.WriteFile(tarPath, tarData, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zstdCLI, "-q", "-19", tarPath, "-o", tarPath+".zst").CombinedOutput(); err != nil {
		t.Fatalf("zstd: %v\n%s", err, out)
	}
	cliArchive, err := os.ReadFile(tarPath + ".zst")
	if err != nil {
		t.Fatal(err)
	}
	cases["zstd CLI, skippable first and last"] = cat(skippableFrame(0, []byte("note")), cliArchive, skippableFrame(9, []byte("end")))
	for name, data := range cases {
		p := filepath.Join(dir, "s.zst")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(zstdCLI, "-q", "-t", p).CombinedOutput(); err != nil {
			t.Errorf("%s: zstd -t refuses the stream: %v\n%s", name, err, out)
		}
		if diff := cmp.Diff(want, mustUnpack(t, data, unpack.Options{})); diff != "" {
			t.Errorf("(-plain +%s):\n%s", name, diff)
		}
	}
}
