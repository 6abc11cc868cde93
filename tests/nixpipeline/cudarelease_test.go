package nixpipeline

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testelf"
)

// A small CUDA release, shaped like NVIDIA's (package names, sonames and
// the libraries' DT_NEEDED as in CUDA 12.8 and cuDNN 9.8), written by the
// tests: a "cuda" manifest and a "cudnn" one with CUDA variants, each in
// a directory named after its redist, with the archives beside them.

type fakeArchive struct {
	pkg, version, platform, variant string
	entries                         []testarchive.Entry
}

var machines = map[string]elf.Machine{"linux-x86_64": elf.EM_X86_64, "linux-sbsa": elf.EM_AARCH64}

func soLib(platform, soname string, needed ...string) []byte {
	return testelf.Build(testelf.Spec{Machine: machines[platform], Soname: soname, Needed: needed})
}

// sharedLib is a shared library as NVIDIA ships it: the file
// lib/<name>.so.<version>, and the symlinks <soname> and <name>.so.
func sharedLib(platform, dir, soname, version string, needed ...string) []testarchive.Entry {
	name, _, _ := strings.Cut(soname, ".so")
	file := name + ".so." + version
	return []testarchive.Entry{
		testarchive.B(dir+"/"+file, soLib(platform, soname, needed...)),
		testarchive.L(dir+"/"+soname, file),
		testarchive.L(dir+"/"+name+".so", soname),
	}
}

func staticArchive(platform string) []byte {
	obj := testelf.Build(testelf.Spec{Machine: machines[platform], Type: elf.ET_REL, NoDynamic: true})
	return testelf.Archive(map[string][]byte{"a.o": obj}, []string{"a.o"})
}

// cudaArchives are the archives of the fake cuda 12.8.0 release.
func cudaArchives() []fakeArchive {
	var out []fakeArchive
	for _, p := range []string{"linux-x86_64", "linux-sbsa"} {
		f, b, x := testarchive.F, testarchive.B, testarchive.X
		add := func(pkg, version string, groups ...[]testarchive.Entry) {
			top := fmt.Sprintf("%s-%s-%s-archive/", pkg, p, version)
			all := []testarchive.Entry{testarchive.D(top), f(top+"LICENSE", "NVIDIA license text mentioning /usr/share/doc\n")}
			for _, g := range groups {
				for _, e := range g {
					e.Name = top + e.Name // symlink targets stay relative to their directory
					all = append(all, e)
				}
			}
			out = append(out, fakeArchive{pkg: pkg, version: version, platform: p, entries: all})
		}
		one := func(es ...testarchive.Entry) []testarchive.Entry { return es }
		add("cuda_cudart", "12.8.57",
			one(f("include/cuda_runtime.h", "#pragma once\n")),
			sharedLib(p, "lib", "libcudart.so.12", "12.8.57", "libc.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"),
			one(b("lib/libcudart_static.a", staticArchive(p)),
				b("lib/stubs/libcuda.so", soLib(p, "libcuda.so.1")),
				f("pkg-config/cudart-12.8.pc", "cudaroot=/usr/local/cuda-12.8\nlibdir=${cudaroot}/lib\nincludedir=${cudaroot}/include\n\nName: cudart\nLibs: -L${libdir} -lcudart\n")))
		add("libcublas", "12.8.3.14",
			one(f("include/cublas_v2.h", "#pragma once\n")),
			sharedLib(p, "lib", "libcublas.so.12", "12.8.3.14", "libcublasLt.so.12", "libstdc++.so.6", "libgcc_s.so.1", "libm.so.6", "libc.so.6"),
			sharedLib(p, "lib", "libcublasLt.so.12", "12.8.3.14", "libc.so.6", "ld-linux-x86-64.so.2"),
			one(b("lib/libcublas_static.a", staticArchive(p)),
				b("lib/stubs/libcublas.so", soLib(p, "libcublas.so.12"))))
		add("libnvjitlink", "12.8.61",
			one(f("include/nvJitLink.h", "#pragma once\n")),
			sharedLib(p, "lib", "libnvJitLink.so.12", "12.8.61", "libc.so.6"),
			one(b("lib/libnvJitLink_static.a", staticArchive(p)),
				b("lib/stubs/libnvJitLink.so", soLib(p, "libnvJitLink.so.12"))))
		add("libcusparse", "12.5.7.53",
			one(f("include/cusparse.h", "#pragma once\n")),
			sharedLib(p, "lib", "libcusparse.so.12", "12.5.7.53", "libnvJitLink.so.12", "libc.so.6"),
			one(b("lib/libcusparse_static.a", staticArchive(p)),
				b("lib/stubs/libcusparse.so", soLib(p, "libcusparse.so.12"))))
		add("libcusolver", "11.7.2.55",
			one(f("include/cusolverDn.h", "#pragma once\n")),
			sharedLib(p, "lib", "libcusolver.so.11", "11.7.2.55", "libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12", "libnvJitLink.so.12", "libgomp.so.1", "libc.so.6"),
			one(b("lib/libcusolver_static.a", staticArchive(p)),
				b("lib/stubs/libcusolver.so", soLib(p, "libcusolver.so.11"))))
		cupti := one(f("include/cupti.h", "#pragma once\n"), f("samples/callback/Makefile", "CUDA_PATH ?= /usr/local/cuda\n"))
		if p == "linux-x86_64" { // static archives on x86_64 only
			cupti = append(cupti, b("lib/libcupti_static.a", staticArchive(p)))
		}
		add("cuda_cupti", "12.8.57", cupti, sharedLib(p, "lib", "libcupti.so.12", "12.8.57", "libc.so.6"))
		add("cuda_cccl", "12.8.55",
			one(f("include/thrust/version.h", "#pragma once\n"),
				f("include/cuda/std/version", "#pragma once\n")))
		add("cuda_nvcc", "12.8.61",
			one(x("bin/nvcc", "#!/bin/sh\n# looks in /usr/include\n"),
				f("include/crt/host_config.h", "#pragma once\n")))
		add("cuda_nvml_dev", "12.8.55",
			one(f("include/nvml.h", "#pragma once\n"),
				b("lib/stubs/libnvidia-ml.so", soLib(p, "libnvidia-ml.so.1", "libc.so.6"))))
	}
	return out
}

// cudnnArchives are the archives of the fake cudnn 9.8.0 release (variant cuda12).
func cudnnArchives() []fakeArchive {
	var out []fakeArchive
	for _, p := range []string{"linux-x86_64", "linux-sbsa"} {
		top := fmt.Sprintf("cudnn-%s-9.8.0.87_cuda12-archive/", p)
		out = append(out, fakeArchive{pkg: "cudnn", version: "9.8.0.87", platform: p, variant: "cuda12", entries: []testarchive.Entry{
			testarchive.D(top),
			testarchive.F(top+"LICENSE", "license\n"),
			testarchive.F(top+"include/cudnn.h", "#pragma once\n"),
			testarchive.B(top+"lib/libcudnn.so.9.8.0", soLib(p, "libcudnn.so.9", "libcublas.so.12", "libcublasLt.so.12", "libz.so.1", "libdl.so.2", "libc.so.6")),
			testarchive.L(top+"lib/libcudnn.so.9", "libcudnn.so.9.8.0"),
			testarchive.L(top+"lib/libcudnn.so", "libcudnn.so.9"),
			testarchive.B(top+"lib/libcudnn_static.a", staticArchive(p)),
		}})
	}
	return out
}

// writeRelease writes redistrib_<version>.json into manifestDir and the
// archives under archiveDir (the base URL's directory).
func writeRelease(t *testing.T, manifestDir, archiveDir, version string, archives []fakeArchive) {
	t.Helper()
	doc := map[string]any{"release_date": "2025-01-01", "release_label": version, "release_product": "fake"}
	for _, a := range archives {
		v := a.version
		if a.variant != "" {
			v += "_" + a.variant
		}
		rel := fmt.Sprintf("%s/%s/%s-%s-%s-archive.tar.xz", a.pkg, a.platform, a.pkg, a.platform, v)
		data := testarchive.TarXz(a.entries)
		path := filepath.Join(archiveDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		leaf := map[string]any{"relative_path": rel, "sha256": hex.EncodeToString(sum[:]), "md5": "00000000000000000000000000000000", "size": strconv.Itoa(len(data))}
		r, _ := doc[a.pkg].(map[string]any)
		if r == nil {
			r = map[string]any{"name": a.pkg, "license": "NVIDIA", "version": a.version}
			if a.variant != "" {
				r["cuda_variant"] = []string{"12"}
			}
			doc[a.pkg] = r
		}
		if a.variant == "" {
			r[a.platform] = leaf
		} else {
			byVariant, _ := r[a.platform].(map[string]any)
			if byVariant == nil {
				byVariant = map[string]any{}
				r[a.platform] = byVariant
			}
			byVariant[a.variant] = leaf
		}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(manifestDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manifestDir, "redistrib_"+version+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
