package xz_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ref "github.com/therootcompany/xz"
	ulikunitz "github.com/ulikunitz/xz"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack/xz"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// github.com/therootcompany/xz, a Go port of XZ Embedded that this
// package shares no code with, is the oracle: on every input both must
// give the same bytes, or both must fail.

const outputCap = 64 << 20

func decodeOurs(data []byte) ([]byte, error) {
	r, err := xz.NewReader(bytes.NewReader(data), 0)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(r, outputCap))
}

func decodeOracle(data []byte) ([]byte, error) {
	r, err := ref.NewReader(bytes.NewReader(data), 0)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(r, outputCap))
}

// agree fails the test unless both decoders give the same output and
// neither fails, or both fail.
func agree(t *testing.T, data []byte) []byte {
	t.Helper()
	got, gotErr := decodeOurs(data)
	want, wantErr := decodeOracle(data)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("error disagreement: ours %v, oracle %v", gotErr, wantErr)
	}
	if gotErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("output disagreement: ours %d bytes, oracle %d bytes, first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	return got
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sample is data with the mix of structure and noise of a binary: runs,
// repeats at many distances, text, and random bytes.
func sample(seed int64, n int) []byte {
	rng := rand.New(rand.NewSource(seed))
	out := make([]byte, 0, n)
	words := []string{"cuda", "sm_80", "libcurand.so.10", "\x00\x00\x00\x00", ".text", "__nv_fatbin", "\x7fELF\x02\x01\x01"}
	for len(out) < n {
		switch rng.Intn(4) {
		case 0:
			out = append(out, words[rng.Intn(len(words))]...)
		case 1:
			if len(out) > 0 {
				from := rng.Intn(len(out))
				l := 2 + rng.Intn(300)
				for i := 0; i < l && len(out) < n; i++ {
					out = append(out, out[from+i%(len(out)-from)])
				}
			}
		case 2:
			for i := rng.Intn(64); i > 0; i-- {
				out = append(out, byte(rng.Intn(256)))
			}
		default:
			out = append(out, bytes.Repeat([]byte{byte(rng.Intn(256))}, rng.Intn(40))...)
		}
	}
	return out[:n]
}

// xzTool compresses data with XZ Utils' xz and the given arguments.
func xzTool(t *testing.T, data []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("xz", append([]string{"-c", "-T1"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("xz %v: %v: %s", args, err, stderr.String())
	}
	return out.Bytes()
}

// needXZ wants XZ Utils' xz: the oracle compresses with its presets and
// options, which BusyBox's decompress-only xz (the Nix stand-in's shell
// tools) does not have.
func needXZ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("xz"); err != nil {
		testenv.Unavailable(t, "xz is not installed (apt-get install xz-utils)", "CRFF_REQUIRE_NIX")
		return
	}
	if out, err := exec.Command("xz", "--version").CombinedOutput(); err != nil || !bytes.Contains(out, []byte("XZ Utils")) {
		testenv.Unavailable(t, fmt.Sprintf("the xz in PATH is not XZ Utils (apt-get install xz-utils): %v: %.80q", err, out), "CRFF_REQUIRE_NIX")
	}
}

// TestXZUtilsFiles decodes what XZ Utils makes with every preset, -e,
// every check type, several blocks, several streams and stream padding,
// and checks the result against the input and the oracle.
func TestXZUtilsFiles(t *testing.T) {
	needXZ(t)
	data := sample(1, 2<<20)
	var cases [][]string
	for level := 0; level <= 9; level++ {
		cases = append(cases, []string{fmt.Sprintf("-%d", level)})
	}
	cases = append(cases,
		[]string{"-6e"}, []string{"-0e"},
		[]string{"--check=crc32"}, []string{"--check=crc64"}, []string{"--check=sha256"}, []string{"--check=none"},
		[]string{"--block-size=100000"}, []string{"-1", "--block-size=1MiB", "--check=sha256"},
		[]string{"--lzma2=preset=6,lc=4,lp=0,pb=0"}, []string{"--lzma2=preset=6,lc=0,lp=4,pb=4"},
		[]string{"--lzma2=dict=4KiB,mf=hc3,mode=fast"},
		[]string{"--x86", "--lzma2=preset=6"}, []string{"--delta=dist=4", "--lzma2=preset=1"},
	)
	for _, args := range cases {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			got := agree(t, xzTool(t, data, args...))
			if !bytes.Equal(got, data) {
				t.Fatalf("decoded %d bytes, want the %d input bytes", len(got), len(data))
			}
		})
	}
	t.Run("two streams with padding", func(t *testing.T) {
		a := xzTool(t, data[:1<<20], "-3")
		b := xzTool(t, data[1<<20:], "--check=sha256")
		stream := append(append(append([]byte{}, a...), make([]byte, 8)...), b...)
		if got := agree(t, stream); !bytes.Equal(got, data) {
			t.Fatalf("decoded %d bytes, want %d", len(got), len(data))
		}
	})
	t.Run("random data (uncompressed chunks)", func(t *testing.T) {
		noise := make([]byte, 1<<20)
		rand.New(rand.NewSource(2)).Read(noise)
		if got := agree(t, xzTool(t, noise, "-6")); !bytes.Equal(got, noise) {
			t.Fatal("random data not decoded to itself")
		}
	})
	// More output than the dictionary's ring holds (at least 2 MiB, see
	// window.go): chunks spill past its end and matches reach back
	// across it, including from exactly one ring back (dictionary size
	// 3 MiB, a multiple of 16, so the ring is the dictionary).
	long := sample(5, 7<<20)
	for _, args := range [][]string{
		{"--lzma2=preset=3,dict=64KiB"},
		{"--lzma2=preset=6,dict=3MiB"},
		{"--x86", "--lzma2=preset=1,dict=3MiB"},
	} {
		t.Run(fmt.Sprint("wrapping ", args), func(t *testing.T) {
			if got := agree(t, xzTool(t, long, args...)); !bytes.Equal(got, long) {
				t.Fatalf("decoded %d bytes, want the %d input bytes", len(got), len(long))
			}
		})
	}
}

// TestBCJFilters decodes each architecture's BCJ filter as XZ Utils
// makes it (random data holds enough lookalike branches), at offset 0
// and at an aligned start offset, and refuses a misaligned one and the
// ARM64 filter (which the oracle lacks too) by name.
func TestBCJFilters(t *testing.T) {
	needXZ(t)
	data := make([]byte, 300<<10)
	rand.New(rand.NewSource(6)).Read(data)
	copy(data[100<<10:], sample(7, 100<<10))
	for _, arg := range []string{"--x86", "--powerpc", "--ia64", "--arm", "--armthumb", "--sparc"} {
		for _, start := range []string{"", "=start=4096"} {
			t.Run(arg+start, func(t *testing.T) {
				if got := agree(t, xzTool(t, data, arg+start, "--lzma2=preset=1")); !bytes.Equal(got, data) {
					t.Fatalf("decoded %d bytes, not the %d input bytes", len(got), len(data))
				}
			})
		}
	}
	// XZ Utils writes no misaligned start offset: patch one into the
	// block header (which starts at byte 12) and fix its CRC32.
	misaligned := xzTool(t, data[:1000], "--sparc=start=4096", "--lzma2=preset=1")
	header := misaligned[12 : 12+(int(misaligned[12])+1)*4]
	at := bytes.Index(header, []byte{0x09, 0x04, 0x00, 0x10, 0x00, 0x00})
	if at < 0 {
		t.Fatalf("no SPARC filter flags with offset 4096 in block header %x", header)
	}
	header[at+2] = 0x02
	binary.LittleEndian.PutUint32(header[len(header)-4:], crc32.ChecksumIEEE(header[:len(header)-4]))
	for name, stream := range map[string][]byte{
		"0x0a (ARM64 BCJ)": xzTool(t, data[:1000], "--arm64", "--lzma2=preset=1"),
		"0x09 (SPARC BCJ) with start offset 4098, not a multiple of 4": misaligned,
	} {
		t.Run(name, func(t *testing.T) {
			agree(t, stream)
			if _, err := decodeOurs(stream); !errors.Is(err, xz.ErrUnsupported) || !strings.Contains(err.Error(), name) {
				t.Fatalf("got %v, want ErrUnsupported naming %s", err, name)
			}
		})
	}
}

// TestReset decodes streams of different dictionary sizes and filters
// one after another with one Reader, as detector/unpack's block workers do.
func TestReset(t *testing.T) {
	needXZ(t)
	var r *xz.Reader
	for i, args := range [][]string{{"-9"}, {"--lzma2=dict=4KiB"}, {"--x86", "--lzma2=preset=1"}, {"-0"}, {"--delta=dist=2", "--lzma2=preset=3"}} {
		data := sample(int64(30+i), 3<<20)
		stream := xzTool(t, data, args...)
		var err error
		if r == nil {
			r, err = xz.NewReader(bytes.NewReader(stream), 0)
		} else {
			err = r.Reset(bytes.NewReader(stream))
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%v: %v, %d bytes, want %d", args, err, len(got), len(data))
		}
	}
}

// TestRealLibraries decodes the first MiBs of real CUDA libraries as
// xz -6 and -9e compress them (CRFF_REAL_CUDA, see scripts/fetch-real-cuda.sh).
func TestRealLibraries(t *testing.T) {
	needXZ(t)
	root := testenv.RealCUDA(t)
	libs, _ := filepath.Glob(filepath.Join(root, "root/usr/lib/x86_64-linux-gnu/lib*.so.*.*"))
	if len(libs) == 0 {
		t.Fatalf("no libraries under %s", root)
	}
	for _, lib := range libs[:min(2, len(libs))] {
		f, err := os.Open(lib)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(io.LimitReader(f, 3<<20))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, preset := range []string{"-6", "-9e"} {
			if got := agree(t, xzTool(t, data, preset)); !bytes.Equal(got, data) {
				t.Fatalf("%s %s: decoded %d bytes, want %d", lib, preset, len(got), len(data))
			}
		}
	}
}

// TestCorruptionAgrees flips bytes all over valid streams: the two
// decoders must agree on each, and never give wrong bytes silently.
func TestCorruptionAgrees(t *testing.T) {
	data := sample(3, 200<<10)
	valid := ulikunitzEncode(t, data)
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 300; i++ {
		bad := append([]byte{}, valid...)
		for n := 1 + rng.Intn(3); n > 0; n-- {
			bad[rng.Intn(len(bad))] ^= byte(1 + rng.Intn(255))
		}
		got, err := decodeOurs(bad)
		agree(t, bad)
		if err == nil && !bytes.Equal(got, data) {
			t.Fatalf("corrupt stream %d decoded without error to different bytes", i)
		}
	}
}

func ulikunitzEncode(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	w, err := ulikunitz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecodersAgree: on any input, both decoders give the same bytes or
// both fail. Seeds are valid streams; the fuzzer mutates them.
func FuzzDecodersAgree(f *testing.F) {
	for i, n := range []int{0, 1, 100, 5000, 70000} {
		f.Add(ulikunitzEncode(f, sample(int64(10+i), n)))
	}
	if out, err := exec.Command("xz", "--version").Output(); err == nil && bytes.Contains(out, []byte("XZ Utils")) {
		for _, args := range [][]string{{"-0"}, {"-9e"}, {"--check=sha256"}, {"--check=none"}, {"--block-size=1000"},
			{"--x86", "--lzma2=preset=0"}, {"--delta=dist=3", "--lzma2=preset=0"}, {"--arm", "--lzma2=preset=0"},
			{"--armthumb", "--lzma2=preset=0"}, {"--powerpc", "--lzma2=preset=0"}, {"--sparc", "--lzma2=preset=0"},
			{"--ia64", "--lzma2=preset=0"}} {
			cmd := exec.Command("xz", append([]string{"-c", "-T1"}, args...)...)
			cmd.Stdin = bytes.NewReader(sample(20, 20000))
			if out, err := cmd.Output(); err == nil {
				f.Add(out)
			}
		}
	} else {
		testenv.NotChecked(f, "XZ Utils' xz is not installed (apt-get install xz-utils): no xz-made seeds")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, data)
	})
}
