// Package sample generates the bundled sample: two small manifests in
// NVIDIA's format (a v2 one and a v3 one with CUDA variants) and the
// archives they list, built deterministically from code so that every
// byte of the sample can be regenerated and checked.
//
// The archives exercise every detector rule: executables, headers,
// pkg-config, docs, shared libraries with fatbins (compressed and not),
// a static archive with device code, stubs, lib/<major> directories,
// samples, python modules, a .tar.gz with an unconventional path, a
// .zip for Windows, a v3 variant manifest and a source package.
package sample

import (
	"crypto/md5"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nix-cuda/cuda-redist-find-features/internal/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/internal/testelf"
	"github.com/nix-cuda/cuda-redist-find-features/internal/testfatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// RedistName is the sample's redist, like "cuda" or "cudnn".
const RedistName = "sample"

type img = testfatbin.Image

type entry = testarchive.Entry

var (
	f = testarchive.F
	x = testarchive.X
	b = testarchive.B
	l = testarchive.L
	d = testarchive.D
)

// archive is one archive of a manifest.
type archive struct {
	pkg, platform, variant string
	relPath                string // relative to the base URL
	format                 string // "tar.xz", "tar.gz", "zip"
	entries                []entry
}

type release struct {
	pkg, name, license, licensePath, version string
	variants                                 []string // v3 cuda_variant
}

type manifest struct {
	version  string
	date     string
	label    string
	product  string
	releases []release
	archives []archive
}

func lib(machine elf.Machine, soname string, needed []string, fat []byte) []byte {
	spec := testelf.Spec{Machine: machine, Soname: soname, Needed: needed}
	if fat != nil {
		spec.Sections = []testelf.Section{{Name: ".nv_fatbin", Data: fat}}
	}
	return testelf.Build(spec)
}

func staticLib(machine elf.Machine, sms ...int) []byte {
	var imgs []img
	for _, sm := range sms {
		imgs = append(imgs, img{SM: sm})
	}
	obj := testelf.Build(testelf.Spec{Machine: machine, Type: elf.ET_REL, NoDynamic: true,
		Sections: []testelf.Section{{Name: "__nv_relfatbin", Data: testfatbin.Container(imgs...)}}})
	host := testelf.Build(testelf.Spec{Machine: machine, Type: elf.ET_REL, NoDynamic: true})
	return testelf.Archive(map[string][]byte{"demo_kernels.o": obj, "demo_host_helpers.o": host}, []string{"demo_kernels.o", "demo_host_helpers.o"})
}

const license = "Sample license for the bundled demo archives.\n"

func rtEntries(top string, machine elf.Machine, withStatic bool) []entry {
	fat := testfatbin.Section(
		testfatbin.Container(img{SM: 52}, img{SM: 80, Compress: true}, img{SM: 90}),
		testfatbin.Container(img{SM: 90, PTX: true, Compress: true}),
	)
	es := []entry{
		d(top + "/"),
		f(top+"/LICENSE", license),
		f(top+"/include/demo_rt.h", "#pragma once\nint demo_rt_version(void);\n"),
		b(top+"/lib/libdemo_rt.so.1.0.0", lib(machine, "libdemo_rt.so.1", []string{"libm.so.6", "libc.so.6"}, fat)),
		l(top+"/lib/libdemo_rt.so.1", "libdemo_rt.so.1.0.0"),
		l(top+"/lib/libdemo_rt.so", "libdemo_rt.so.1"),
		b(top+"/lib/stubs/libdemo_driver.so", lib(machine, "libdemo_driver.so.1", nil, nil)),
		f(top+"/pkg-config/demo_rt-1.0.pc", "cudaroot=/usr/local/cuda-1.0\nlibdir=${cudaroot}/lib\nincludedir=${cudaroot}/include\n\nName: demo_rt\nVersion: 1.0\nLibs: -L${libdir} -ldemo_rt\n"),
	}
	if withStatic {
		es = append(es, b(top+"/lib/libdemo_rt_static.a", staticLib(machine, 80, 90)))
	}
	return es
}

func manifests() []manifest {
	rt := "cuda_demo_rt"
	return []manifest{
		{
			version: "1.0.0", date: "2025-01-01", label: "1.0.0", product: "Sample",
			releases: []release{
				{pkg: rt, name: "Demo Runtime", license: "Sample", licensePath: "cuda_demo_rt/LICENSE.txt", version: "1.0.42"},
				{pkg: "cuda_demo_tools", name: "Demo Tools", license: "Sample", version: "1.0.7"},
				{pkg: "libdemo_versioned", name: "Demo library with lib/<major>", license: "Sample", version: "2.3.0"},
				{pkg: "demo_samples", name: "Demo samples", license: "Sample", version: "1.0.0"},
			},
			archives: []archive{
				{pkg: rt, platform: "linux-x86_64", format: "tar.xz",
					entries: rtEntries("cuda_demo_rt-linux-x86_64-1.0.42-archive", elf.EM_X86_64, true)},
				{pkg: rt, platform: "linux-sbsa", format: "tar.xz",
					entries: rtEntries("cuda_demo_rt-linux-sbsa-1.0.42-archive", elf.EM_AARCH64, false)},
				{pkg: rt, platform: "windows-x86_64", format: "zip", entries: []entry{
					d("cuda_demo_rt-windows-x86_64-1.0.42-archive/"),
					f("cuda_demo_rt-windows-x86_64-1.0.42-archive/LICENSE", license),
					f("cuda_demo_rt-windows-x86_64-1.0.42-archive/bin/demo_rt64_1.dll", "MZ not really a dll"),
					f("cuda_demo_rt-windows-x86_64-1.0.42-archive/include/demo_rt.h", "#pragma once\n"),
					f("cuda_demo_rt-windows-x86_64-1.0.42-archive/lib/x64/demo_rt.lib", "!<arch>\n"),
				}},
				{pkg: "cuda_demo_tools", platform: "linux-x86_64", format: "tar.gz",
					relPath: "cuda_demo_tools/linux-x86_64/demo-tools-1.0.7.tar.gz", entries: []entry{
						d("demo-tools-1.0.7/"),
						f("demo-tools-1.0.7/LICENSE", license),
						x("demo-tools-1.0.7/bin/demo-tool", "#!/bin/sh\necho demo\n"),
						f("demo-tools-1.0.7/bin/demo-tool.txt", "not executable\n"),
						f("demo-tools-1.0.7/share/doc/demo/README", "Demo tools.\n"),
						f("demo-tools-1.0.7/share/man/man1/demo-tool.1", ".TH DEMO-TOOL 1\n"),
					}},
				{pkg: "libdemo_versioned", platform: "linux-x86_64", format: "tar.xz", entries: []entry{
					d("libdemo_versioned-linux-x86_64-2.3.0-archive/"),
					f("libdemo_versioned-linux-x86_64-2.3.0-archive/LICENSE", license),
					f("libdemo_versioned-linux-x86_64-2.3.0-archive/include/demo_v.h", "int demo_v(void);\n"),
					b("libdemo_versioned-linux-x86_64-2.3.0-archive/lib/11/libdemo_v.so",
						lib(elf.EM_X86_64, "libdemo_v.so.2", []string{"libcudart.so.11.0"}, testfatbin.Container(img{SM: 60}, img{SM: 70}))),
					// The sm_90 cubin's e_flags carry the accelerator bit but its
					// entry header does not: cuobjdump lists sm_90, not sm_90a.
					b("libdemo_versioned-linux-x86_64-2.3.0-archive/lib/12/libdemo_v.so",
						lib(elf.EM_X86_64, "libdemo_v.so.2", []string{"libcudart.so.12"}, testfatbin.Container(img{SM: 70}, img{SM: 80}, img{SM: 90, ELFAccel: true}))),
				}},
				{pkg: "demo_samples", platform: "linux-x86_64", format: "tar.xz", entries: []entry{
					d("demo_samples-linux-x86_64-1.0.0-archive/"),
					f("demo_samples-linux-x86_64-1.0.0-archive/LICENSE", license),
					f("demo_samples-linux-x86_64-1.0.0-archive/samples/vectorAdd/vectorAdd.cu", "__global__ void add() {}\n"),
					f("demo_samples-linux-x86_64-1.0.0-archive/samples/vectorAdd/Makefile", "CUDA_PATH ?= /usr/local/cuda\n"),
					f("demo_samples-linux-x86_64-1.0.0-archive/python/demo_py-1.0-py3-none-any.whl", "PK not really a wheel"),
					f("demo_samples-linux-x86_64-1.0.0-archive/lib/python3.11/site-packages/demo/__init__.py", "VERSION = '1.0'\n"),
				}},
			},
		},
		{
			version: "2.0.0", date: "2025-06-01", label: "2.0.0", product: "Sample",
			releases: []release{
				{pkg: "libdemo_variant", name: "Demo library per CUDA major", license: "Sample", licensePath: "libdemo_variant/LICENSE.txt", version: "2.0.1", variants: []string{"11", "12"}},
				{pkg: "demo_src", name: "Demo sources", license: "Sample", version: "2.0.0"},
			},
			archives: []archive{
				variantArchive("linux-x86_64", "cuda11", elf.EM_X86_64, []int{60, 70}),
				variantArchive("linux-x86_64", "cuda12", elf.EM_X86_64, []int{70, 80, 90}),
				variantArchive("linux-sbsa", "cuda12", elf.EM_AARCH64, []int{80, 90}),
				{pkg: "demo_src", platform: "source", format: "tar.xz", relPath: "demo_src/demo_src-2.0.0-archive.tar.xz", entries: []entry{
					d("demo_src-2.0.0-archive/"),
					f("demo_src-2.0.0-archive/LICENSE", license),
					f("demo_src-2.0.0-archive/src/demo.cu", "__global__ void k() {}\n"),
					f("demo_src-2.0.0-archive/include/demo_src.h", "void k(void);\n"),
				}},
			},
		},
	}
}

func variantArchive(platform, variant string, machine elf.Machine, sms []int) archive {
	top := fmt.Sprintf("libdemo_variant-%s-2.0.1_%s-archive", platform, variant)
	var imgs []img
	for _, sm := range sms {
		imgs = append(imgs, img{SM: sm, Compress: sm >= 80})
	}
	major := variant[len("cuda"):]
	return archive{pkg: "libdemo_variant", platform: platform, variant: variant, format: "tar.xz", entries: []entry{
		d(top + "/"),
		f(top+"/LICENSE", license),
		f(top+"/include/demo_variant.h", "int demo_variant(void);\n"),
		b(top+"/lib/libdemo_variant.so.2", lib(machine, "libdemo_variant.so.2", []string{"libcudart.so." + major}, testfatbin.Container(imgs...))),
		l(top+"/lib/libdemo_variant.so", "libdemo_variant.so.2"),
		b(top+"/lib/libdemo_variant_static.a", staticLib(machine, sms...)),
	}}
}

// conventionalPath is NVIDIA's usual relative path for an archive.
func conventionalPath(pkg, platform, version, variant, ext string) string {
	v := version
	if variant != "" {
		v += "_" + variant
	}
	return fmt.Sprintf("%s/%s/%s-%s-%s-archive.%s", pkg, platform, pkg, platform, v, ext)
}

func encodeArchive(a archive) ([]byte, error) {
	switch a.format {
	case "tar.xz":
		return testarchive.TarXz(a.entries), nil
	case "tar.gz":
		return testarchive.TarGz(a.entries), nil
	case "zip":
		return testarchive.Zip(a.entries), nil
	}
	return nil, fmt.Errorf("unknown format %q", a.format)
}

// Write generates the sample below dir: dir/redistrib_<version>.json and
// the archives at their relative paths. It returns the files written,
// relative to dir.
func Write(dir string) ([]string, error) {
	var written []string
	put := func(rel string, data []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		written = append(written, rel)
		return os.WriteFile(p, data, 0o644)
	}
	for _, m := range manifests() {
		doc := map[string]any{"release_date": m.date, "release_label": m.label, "release_product": m.product}
		versions := map[string]string{}
		for _, r := range m.releases {
			rel := map[string]any{"name": r.name, "license": r.license, "version": r.version}
			if r.licensePath != "" {
				rel["license_path"] = r.licensePath
			}
			if r.variants != nil {
				rel["cuda_variant"] = r.variants
			}
			doc[r.pkg] = rel
			versions[r.pkg] = r.version
		}
		for _, a := range m.archives {
			data, err := encodeArchive(a)
			if err != nil {
				return nil, err
			}
			relPath := a.relPath
			if relPath == "" {
				relPath = conventionalPath(a.pkg, a.platform, versions[a.pkg], a.variant, a.format)
			}
			if err := put(relPath, data); err != nil {
				return nil, err
			}
			sum := sha256.Sum256(data)
			md := md5.Sum(data)
			leaf := map[string]any{
				"relative_path": relPath,
				"sha256":        hex.EncodeToString(sum[:]),
				"md5":           hex.EncodeToString(md[:]),
				"size":          strconv.Itoa(len(data)),
			}
			rel := doc[a.pkg].(map[string]any)
			if a.variant == "" {
				rel[a.platform] = leaf
			} else {
				byVariant, _ := rel[a.platform].(map[string]any)
				if byVariant == nil {
					byVariant = map[string]any{}
					rel[a.platform] = byVariant
				}
				byVariant[a.variant] = leaf
			}
		}
		data, err := features.Encode(doc)
		if err != nil {
			return nil, err
		}
		if err := put("redistrib_"+m.version+".json", data); err != nil {
			return nil, err
		}
	}
	return written, nil
}
