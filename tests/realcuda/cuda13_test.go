package realcuda

import (
	"bytes"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// real13 returns the unpacked CUDA 13 wheels (DIR/cuda-13/root) and the
// directory of cuobjdump 13.4 and nvcc 13.5.
func real13(t *testing.T) (root, bin string) {
	return realSet(t, "cuda-13", "nvidia/cu13/bin", "cuobjdump", "nvcc", "ptxas", "fatbinary", "../nvvm/bin/cicc")
}

// listedName is one line of cuobjdump --list-elf or --list-ptx:
// `ELF file    1: libx.1.sm_90a.cubin`, `PTX file    1: libx.1.sm_120f.ptx`.
var listedName = regexp.MustCompile(`(?m)^(?:ELF|PTX) file\s+\d+: .*\.(sm_[0-9]+[a-z]?)\.(?:cubin|ptx)$`)

// oracleNames runs cuobjdump with --list-elf or --list-ptx and returns the
// distinct architectures of the file names it prints.
func oracleNames(t *testing.T, cuobjdump, flag, file string) []string {
	t.Helper()
	out, err := exec.Command(cuobjdump, flag, file).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "does not contain device code") {
		t.Fatalf("cuobjdump %s %s: %v\n%s", flag, file, err, out)
	}
	set := map[string]bool{}
	for _, m := range listedName.FindAllStringSubmatch(string(out), -1) {
		set[m[1]] = true
	}
	names := []string{}
	for a := range set {
		names = append(names, a)
	}
	fatbin.SortArchs(names)
	return names
}

// withoutFamily names sm_XYf as sm_XY: what cuobjdump --list-elf prints
// for a family-specific cubin, whose f is recorded only in the fatbin
// entry header (docs/fatbin.md).
func withoutFamily(archs []string) []string {
	set := map[string]bool{}
	for _, a := range archs {
		set[strings.TrimSuffix(a, "f")] = true
	}
	out := []string{}
	for a := range set {
		out = append(out, a)
	}
	fatbin.SortArchs(out)
	return out
}

// compare13 checks what we read of file against cuobjdump 13.4: the
// plain listing (all, SASS and PTX blocks), --list-elf (our SASS, with
// the f dropped as it names cubins) and --list-ptx (our PTX), and that
// nothing in the fatbin went unexplained. It returns our listing.
func compare13(t *testing.T, cuobjdump, file, rel string, info *elfinfo.Info) listing {
	t.Helper()
	got := ourListing(info)
	plain := oracleListing(t, cuobjdump, file)
	if diff := cmp.Diff(plain, got, cmp.AllowUnexported(listing{})); diff != "" {
		t.Errorf("%s: architectures differ from cuobjdump 13.4 (-cuobjdump +ours):\n%s", rel, diff)
	}
	if diff := cmp.Diff(oracleNames(t, cuobjdump, "--list-elf", file), withoutFamily(got.sass)); diff != "" {
		t.Errorf("%s: SASS differs from cuobjdump --list-elf, f dropped (-cuobjdump +ours):\n%s", rel, diff)
	}
	if diff := cmp.Diff(oracleNames(t, cuobjdump, "--list-ptx", file), got.ptx); diff != "" {
		t.Errorf("%s: PTX differs from cuobjdump --list-ptx (-cuobjdump +ours):\n%s", rel, diff)
	}
	if a := fatbin.Anomalies(info.Images); a != nil {
		t.Errorf("%s: not understood: %q", rel, a)
	}
	return got
}

// TestRealCUDA13 compares every ELF file of the CUDA 13 wheels (the
// libraries of cuBLAS, cuFFT, cuRAND, NVRTC, nvJitLink, the runtime and
// NVVM, and the tools) with cuobjdump 13.4 and patchelf.
func TestRealCUDA13(t *testing.T) {
	root, bin := real13(t)
	cuobjdump := filepath.Join(bin, "cuobjdump")
	_, patchelfErr := exec.LookPath("patchelf")
	if patchelfErr != nil {
		testenv.NotChecked(t, "patchelf is not installed (apt-get install patchelf): sonames and needed libraries not compared")
	}
	w := &wheelScan{t: t, root: root, cuobjdump: cuobjdump, patchelf: patchelfErr == nil}
	if err := filepath.WalkDir(root, w.visit); err != nil {
		t.Fatal(err)
	}
	shared, withCode := w.shared, w.withCode
	// The wheels' libraries, by soname-like file name: all must be there.
	for _, want := range []string{"libcublas.so.13", "libcublasLt.so.13", "libcufft.so.12", "libcufftw.so.12", "libcurand.so.10",
		"libnvrtc.so.13", "libnvJitLink.so.13", "libcudart.so.13", "libnvblas.so.13"} {
		if !slices.Contains(shared, want) {
			t.Errorf("no %s among the shared libraries %v", want, shared)
		}
	}
	t.Logf("%d shared libraries, %d ELF files with device code: %v", len(shared), len(withCode), withCode)

	// The disagreement the comparison above allows, shown by the oracle:
	// libcublasLt's sm_120f cubins are sm_120f in the plain listing and
	// sm_120 in --list-elf.
	lt := filepath.Join(root, "nvidia/cu13/lib/libcublasLt.so.13")
	if plain, named := oracleListing(t, cuobjdump, lt).sass, oracleNames(t, cuobjdump, "--list-elf", lt); !slices.Contains(plain, "sm_120f") || slices.Contains(named, "sm_120f") {
		t.Errorf("libcublasLt: expected sm_120f in the plain listing %v and not in --list-elf %v", plain, named)
	}
}

// wheelScan compares each ELF file under root with the oracles,
// noting the shared libraries and the files with device code.
type wheelScan struct {
	t                *testing.T
	root, cuobjdump  string
	patchelf         bool // compare sonames and needed libraries with patchelf's
	shared, withCode []string
}

// visit is WalkDir's function: each regular ELF file compared.
func (w *wheelScan) visit(p string, d fs.DirEntry, err error) error {
	if err != nil || !d.Type().IsRegular() {
		return err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if elfinfo.IsELF(data) {
		w.compare(p, data)
	}
	return nil
}

// compare checks the ELF file p against cuobjdump and patchelf.
func (w *wheelScan) compare(p string, data []byte) {
	t := w.t
	rel, _ := filepath.Rel(w.root, p)
	info, err := elfinfo.Read(data)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	got := compare13(t, w.cuobjdump, p, rel, info)
	if info.Type == elf.ET_DYN {
		w.shared = append(w.shared, filepath.Base(rel))
	}
	if len(got.all) > 0 {
		w.withCode = append(w.withCode, filepath.Base(rel))
	}
	if w.patchelf {
		soname := strings.Join(patchelf(t, "--print-soname", p), "")
		needed := patchelf(t, "--print-needed", p)
		if info.Soname != soname || !cmp.Equal(needed, info.Needed, cmpEmpty) {
			t.Errorf("%s: soname %q needed %v; patchelf says %q %v", rel, info.Soname, info.Needed, soname, needed)
		}
	}
	t.Logf("%s: %d entries, archs %v (SASS %v, PTX %v), soname %q", rel, len(info.Images), got.all, got.sass, got.ptx, info.Soname)
}

// kernelCU is a small CUDA source with a kernel and a host launcher.
const kernelCU = `__global__ void add_one(int *p) { *p += 1; }
extern "C" void launch(int *p) { add_one<<<1, 1>>>(p); }
`

// nvccTargets are the targets built by TestNVCC13Targets: each kind of
// target nvcc 13.5 offers (generic, a, f, PTX of an f target).
var nvccTargets = []struct {
	name, gencode string
	want          listing
}{
	{"sm_75", "arch=compute_75,code=sm_75", listing{[]string{"sm_75"}, []string{"sm_75"}, []string{}}},
	{"sm_90a", "arch=compute_90a,code=sm_90a", listing{[]string{"sm_90a"}, []string{"sm_90a"}, []string{}}},
	{"sm_100f", "arch=compute_100f,code=sm_100f", listing{[]string{"sm_100f"}, []string{"sm_100f"}, []string{}}},
	{"sm_103f", "arch=compute_103f,code=sm_103f", listing{[]string{"sm_103f"}, []string{"sm_103f"}, []string{}}},
	{"sm_110f", "arch=compute_110f,code=sm_110f", listing{[]string{"sm_110f"}, []string{"sm_110f"}, []string{}}},
	{"sm_120f+compute_120f", "arch=compute_120f,code=[sm_120f,compute_120f]", listing{[]string{"sm_120f"}, []string{"sm_120f"}, []string{"sm_120f"}}},
	{"sm_121a", "arch=compute_121a,code=sm_121a", listing{[]string{"sm_121a"}, []string{"sm_121a"}, []string{}}},
}

// nvccModes are nvcc 13.5's ways of packing device code (nvcc --help):
// uncompressed (two spellings), each --compress-mode, fatbinary's
// -compress-all, and --concat (one compressed entry of several cubins).
var nvccModes = []struct{ name, flag string }{
	{"no-compress", "-no-compress"},
	{"mode-none", "--compress-mode=none"},
	{"mode-default", "--compress-mode=default"},
	{"mode-size", "--compress-mode=size"},
	{"mode-speed", "--compress-mode=speed"},
	{"mode-balance", "--compress-mode=balance"},
	{"compress-all", "-Xfatbin=-compress-all"},
	{"concat", "--concat"},
}

// nvcc builds dir/name.so from kernelCU with nvcc 13.5 and the machine's
// g++; -frandom-seed makes the device code the same from run to run.
func nvcc(t *testing.T, bin, dir, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		testenv.Unavailable(t, "g++ is not installed (scripts/install-deps.sh installs it): nvcc needs it")
	}
	src := filepath.Join(dir, "k.cu")
	if _, err := os.Stat(src); err != nil {
		if err := os.WriteFile(src, []byte(kernelCU), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, name+".so")
	full := append([]string{"-frandom-seed=1", "-shared", "-Xcompiler", "-fPIC", "-o", out}, args...)
	run(t, dir, filepath.Join(bin, "nvcc"), append(full, src)...)
	return out
}

// TestNVCC13Targets builds with nvcc 13.5 a shared library per target
// and packing mode (--concat needs several targets: it is built only
// into the library of all targets), and one of all targets per mode, and
// compares what we read with cuobjdump 13.4, which must itself list the
// targets asked for.
func TestNVCC13Targets(t *testing.T) {
	_, bin := real13(t)
	cuobjdump := filepath.Join(bin, "cuobjdump")
	all := struct {
		name     string
		gencodes []string
		want     listing
	}{name: "all"}
	for _, target := range nvccTargets {
		all.gencodes = append(all.gencodes, "-gencode", target.gencode)
		all.want.all = append(all.want.all, target.want.all...)
		all.want.sass = append(all.want.sass, target.want.sass...)
		all.want.ptx = append(all.want.ptx, target.want.ptx...)
	}
	check := func(t *testing.T, gencodes []string, want listing, mode string, flag string) {
		t.Parallel()
		// A copy: the parallel subtests share gencodes, and an append to
		// its spare capacity by one would overwrite another's flag (a
		// no-compress build got --concat's flag now and then).
		lib := nvcc(t, bin, t.TempDir(), "libk", append(slices.Clone(gencodes), flag)...)
		oracle := oracleListing(t, cuobjdump, lib)
		if diff := cmp.Diff(want, oracle, cmp.AllowUnexported(listing{})); diff != "" {
			t.Fatalf("cuobjdump 13.4 lists (-expected +cuobjdump):\n%s", diff)
		}
		info := readELF(t, lib)
		compare13(t, cuobjdump, lib, filepath.Base(lib), info)
		checkPacking(t, mode, info.Images)
		t.Logf("flags %v", flagsOf(info.Images))
	}
	for _, mode := range nvccModes {
		t.Run(all.name+"/"+mode.name, func(t *testing.T) { check(t, all.gencodes, all.want, mode.name, mode.flag) })
		if mode.name == "concat" {
			continue
		}
		for _, target := range nvccTargets {
			t.Run(target.name+"/"+mode.name, func(t *testing.T) {
				check(t, []string{"-gencode", target.gencode}, target.want, mode.name, mode.flag)
			})
		}
	}
}

// checkPacking checks that a mode did what it is named for, so that each
// subtest covers the layout it claims to: no compression, every entry
// compressed, or a concatenated entry.
func checkPacking(t *testing.T, mode string, entries []fatbin.Entry) {
	t.Helper()
	compressed, concatenated := 0, 0
	for _, e := range entries {
		if e.Nested {
			continue
		}
		if e.Compression() != "" {
			compressed++
		}
		if e.Kind == fatbin.KindConcatenated {
			concatenated++
		}
	}
	top := 0
	for _, e := range entries {
		if !e.Nested {
			top++
		}
	}
	switch mode {
	case "no-compress", "mode-none":
		if compressed != 0 {
			t.Errorf("%s: %d of %d entries compressed", mode, compressed, top)
		}
	case "mode-size", "compress-all":
		if compressed != top {
			t.Errorf("%s: %d of %d entries compressed", mode, compressed, top)
		}
	case "concat":
		if concatenated == 0 {
			t.Errorf("--concat wrote no concatenated entry")
		}
	}
}

// TestFamilyOnlyInHeader settles where the f of sm_100f is recorded: nvcc
// 13.5 builds the same kernel for sm_100, sm_100f and sm_100a; the
// cubins (extracted by cuobjdump -xelf) have the same e_flags, and the
// same .nv.compat attributes for sm_100 and sm_100f (sm_100a's differ);
// only the fatbin entry header tells f (0x200000) and a (0x100000).
func TestFamilyOnlyInHeader(t *testing.T) {
	_, bin := real13(t)
	cuobjdump := filepath.Join(bin, "cuobjdump")
	type cubinFacts struct {
		eflags uint32
		compat []byte
		header uint64 // suffix flags of the entry header
	}
	facts := map[string]cubinFacts{}
	for _, target := range []string{"sm_100", "sm_100f", "sm_100a"} {
		dir := t.TempDir()
		lib := nvcc(t, bin, dir, "lib"+target, "-no-compress", "-gencode", "arch=compute_"+strings.TrimPrefix(target, "sm_")+",code="+target)
		run(t, dir, cuobjdump, "-xelf", "all", lib)
		cubins, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
		if len(cubins) == 0 {
			t.Fatalf("%s: cuobjdump -xelf extracted no cubin", target)
		}
		slices.Sort(cubins)
		f, err := elf.Open(cubins[0]) // the kernel's cubin (the first of the library's fatbin)
		if err != nil {
			t.Fatalf("%s: %v", cubins[0], err)
		}
		sec := f.Section(".nv.compat")
		if sec == nil {
			t.Fatalf("%s: no .nv.compat section", cubins[0])
		}
		compat, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		eflags := eFlags(t, cubins[0])
		f.Close()
		var suffix uint64
		for _, e := range readELF(t, lib).Images {
			suffix |= e.Flags & (fatbin.FlagArchSpecific | fatbin.FlagFamilySpecific)
		}
		facts[target] = cubinFacts{eflags, compat, suffix}
		t.Logf("%s: %s e_flags %#08x, .nv.compat % x, header suffix flags %#x", target, filepath.Base(cubins[0]), eflags, compat, suffix)
	}
	g, fam, spec := facts["sm_100"], facts["sm_100f"], facts["sm_100a"]
	if g.eflags != fam.eflags || g.eflags != spec.eflags {
		t.Errorf("e_flags differ: sm_100 %#x, sm_100f %#x, sm_100a %#x", g.eflags, fam.eflags, spec.eflags)
	}
	if !bytes.Equal(g.compat, fam.compat) || bytes.Equal(g.compat, spec.compat) {
		t.Errorf(".nv.compat: sm_100 % x, sm_100f % x (expected equal), sm_100a % x (expected different)", g.compat, fam.compat, spec.compat)
	}
	if g.header != 0 || fam.header != fatbin.FlagFamilySpecific || spec.header != fatbin.FlagArchSpecific {
		t.Errorf("header suffix flags: sm_100 %#x, sm_100f %#x, sm_100a %#x", g.header, fam.header, spec.header)
	}
}

// eFlags reads an ELF file's e_flags (debug/elf does not expose them).
func eFlags(t *testing.T, file string) uint32 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 0x34 || data[elf.EI_CLASS] != byte(elf.ELFCLASS64) {
		t.Fatalf("%s: not a 64-bit ELF file", file)
	}
	return uint32(data[0x30]) | uint32(data[0x31])<<8 | uint32(data[0x32])<<16 | uint32(data[0x33])<<24
}
