package realcuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

// real125 returns the unpacked CUDA 12.5 packages and the directory of
// their tools (cuobjdump, ptxas, fatbinary).
func real125(t *testing.T) (root, bin string) {
	return realSet(t, "cuda-12.5", "usr/bin", "cuobjdump", "ptxas", "fatbinary")
}

// kernelPTX is a small hand-written kernel: *p += 1.
func kernelPTX(target string) string {
	return `.version 8.5
.target ` + target + `
.address_size 64

.visible .entry add_one(.param .u64 p)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u32 %r1, [%rd2];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd2], %r2;
	ret;
}
`
}

// TestNVIDIAToolsArchSpecific builds real sm_90a and sm_90 cubins with
// ptxas 12.5, packs them with their PTX by fatbinary 12.5, plain and with
// --compress-all, embeds each fatbin in a shared object, and compares what
// we read with cuobjdump 12.5.
func TestNVIDIAToolsArchSpecific(t *testing.T) {
	_, bin := real125(t)
	dir := t.TempDir()
	for _, target := range []string{"sm_90", "sm_90a"} {
		if err := os.WriteFile(filepath.Join(dir, target+".ptx"), []byte(kernelPTX(target)), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, dir, filepath.Join(bin, "ptxas"), "-arch="+target, target+".ptx", "-o", target+".cubin")
	}
	images := []string{
		"--image3=kind=elf,sm=90,file=sm_90.cubin",
		"--image3=kind=elf,sm=90a,file=sm_90a.cubin",
		"--image3=kind=ptx,sm=90,file=sm_90.ptx",
		"--image3=kind=ptx,sm=90a,file=sm_90a.ptx",
	}
	want := listing{
		all:  []string{"sm_90", "sm_90a"},
		sass: []string{"sm_90", "sm_90a"},
		ptx:  []string{"sm_90", "sm_90a"},
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"plain", nil},
		{"compress-all", []string{"--compress-all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := filepath.Join(dir, tc.name)
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--create=" + filepath.Join(sub, "k.fatbin")}, tc.flags...)
			args = append(args, images...)
			run(t, dir, filepath.Join(bin, "fatbinary"), args...)
			section, err := os.ReadFile(filepath.Join(sub, "k.fatbin"))
			if err != nil {
				t.Fatal(err)
			}
			lib := sharedObjectWithFatbin(t, sub, section)
			oracle := oracleListing(t, filepath.Join(bin, "cuobjdump"), lib)
			// The oracle itself must show what the test is about.
			if diff := cmp.Diff(want, oracle, cmp.AllowUnexported(listing{})); diff != "" {
				t.Fatalf("cuobjdump 12.5 lists (-expected +cuobjdump):\n%s", diff)
			}
			info := readELF(t, lib)
			if diff := cmp.Diff(oracle, ourListing(info), cmp.AllowUnexported(listing{})); diff != "" {
				t.Errorf("(-cuobjdump +ours):\n%s", diff)
			}
			compressed := 0
			for _, e := range info.Images {
				if e.Compression() == "lz4" {
					compressed++
				}
			}
			if tc.flags != nil && compressed == 0 {
				t.Errorf("--compress-all left every entry uncompressed: %+v", info.Images)
			}
			t.Logf("%s: %d entries, %d LZ4-compressed, flags %v", tc.name, len(info.Images), compressed, flagsOf(info.Images))
		})
	}
}

func flagsOf(entries []fatbin.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Kind.String()+"/"+e.Arch()+"="+hex(e.Flags))
	}
	return out
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	s := ""
	for {
		s = string(digits[v%16]) + s
		v /= 16
		if v == 0 {
			return "0x" + s
		}
	}
}

// TestSyntheticFatbinsAgainstCuobjdump125 shows that cuobjdump 12.5 reads
// the generator's fatbins as the parser does: the header flag makes the
// suffix, the cubin's e_flags do not, and CUDA 13 shapes (ZSTD payloads,
// 80 to 112-byte headers) list by their headers.
func TestSyntheticFatbinsAgainstCuobjdump125(t *testing.T) {
	_, bin := real125(t)
	type img = testfatbin.Image
	// container writes cubins cuobjdump 12.5 accepts as ELF.
	container := func(images ...img) []byte {
		for i := range images {
			images[i].SectionTable = true
		}
		return testfatbin.Container(images...)
	}
	cases := map[string][]byte{
		"a suffix": container(img{SM: 90}, img{SM: 90, Specific: true}, img{SM: 90, PTX: true, Specific: true, Compress: true}),
		"e_flags accelerator bit without the header flag": container(img{SM: 50, ELFAccel: true}, img{SM: 61, ELFAccel: true, Compress: true}),
		// cuobjdump 12.5 inflates ZSTD payloads and reads the cubin's
		// e_flags in the pre-CUDA 13 layout (it fails on sm_0 for the
		// ABI 8 one), so these cubins keep the ABI 7 layout.
		"CUDA 13 shapes": testfatbin.Section(
			container(img{SM: 75, ZSTD: true}, img{SM: 100, ZSTD: true, HeaderSize: 112, Specific: true}),
			container(img{SM: 120, ZSTD: true, HeaderSize: 104, Specific: true, ExtraFlags: 0x1000000}, img{SM: 120, PTX: true, ZSTD: true, HeaderSize: 80}),
		),
		// cuobjdump 12.5 lists kind 0x10 as "<unknown kind>" with its
		// arch line; kind 0x40 is left out here: 12.5 takes it for
		// relocatable PTX and stops at the payload.
		"kind 0x10": container(img{SM: 90}, img{Kind: 0x10, SM: 100, HeaderSize: 112}, img{SM: 86, PTX: true}),
	}
	for name, section := range cases {
		t.Run(name, func(t *testing.T) {
			lib := sharedObjectWithFatbin(t, t.TempDir(), section)
			oracle := oracleListing(t, filepath.Join(bin, "cuobjdump"), lib)
			if diff := cmp.Diff(oracle, ourListing(readELF(t, lib)), cmp.AllowUnexported(listing{})); diff != "" {
				t.Errorf("(-cuobjdump +ours):\n%s", diff)
			}
			t.Logf("cuobjdump 12.5: %v", oracle.all)
		})
	}
}
