package facts

import (
	"bytes"
	"debug/elf"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/detector/dlopen"
	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Library kinds, as written in features.Library.Kind.
const (
	libShared          = "shared"
	libStatic          = "static"
	libObject          = "object"
	libLinkerScript    = "linkerScript"
	libDanglingSymlink = "danglingSymlink"
	libOther           = "other"
)

// fileInfo is what the ELF reader learnt about one file.
type fileInfo struct {
	kind   string
	soname string
	needed []string
	archs  []string // what cuobjdump lists: the union of images' architectures
	images []fatbin.Entry
	// versionDefs and comments are the provenance facts of a shared
	// library (elfinfo.Info's VersionDefs and Comments).
	versionDefs, comments []string
	// runtimeLoads are a shared library's dlopen candidates
	// (elfinfo.Info's RuntimeLoads and RuntimeLoadsOmitted).
	runtimeLoads        []features.RuntimeLoad
	runtimeLoadsOmitted int
	err                 error
}

// describeDeviceCode fills a library record's device code fields.
func (fi *fileInfo) describeDeviceCode(lib *features.Library) {
	lib.CudaArchitectures = nonNil(fi.archs)
	lib.SASSArchitectures = fatbin.ArchsOfKind(fi.images, fatbin.KindCubin)
	lib.PTXArchitectures = fatbin.ArchsOfKind(fi.images, fatbin.KindPTX)
	lib.FatbinEntries, lib.FatbinEntriesOmitted = fatbinEntries(fi.images)
	lib.FatbinWarnings = fatbin.Anomalies(fi.images)
}

// fatbinEntries groups entries by header shape, ordered by kind, SM,
// flags and header size. Past MaxFatbinGroups groups (a fatbin whose
// entries each carry other flags), the rest are counted, not listed.
func fatbinEntries(images []fatbin.Entry) (groups []features.FatbinEntry, omitted int) {
	counts := map[features.FatbinEntry]int{}
	for _, e := range images {
		counts[features.FatbinEntry{Kind: int(e.Kind), SM: e.SM, Flags: e.Flags, HeaderSize: e.HeaderSize}]++
	}
	out := make([]features.FatbinEntry, 0, len(counts))
	for k, n := range counts {
		k.Count = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		case a.SM != b.SM:
			return a.SM < b.SM
		case a.Flags != b.Flags:
			return a.Flags < b.Flags
		}
		return a.HeaderSize < b.HeaderSize
	})
	if len(out) > MaxFatbinGroups {
		for _, g := range out[MaxFatbinGroups:] {
			omitted += g.Count
		}
		out = out[:MaxFatbinGroups:MaxFatbinGroups]
	}
	return out, omitted
}

// isLibraryName matches the names detect records as libraries:
// *.so, *.so.<version> and *.a.
func isLibraryName(name string) bool {
	return hasSuffix(".so", ".a")(name) || strings.Contains(name, ".so.")
}

// inspect reads an ELF file, a static archive, or a *.so that is a linker
// script. It reads only headers, the dynamic section and the fatbin
// sections; other files are left alone.
func inspect(rel string, data []byte) *fileInfo { return inspectPrescanned(rel, data, nil) }

// inspectPrescanned is inspect with a shared library's run-time load
// scan searched already by pre (nil: searched here).
func inspectPrescanned(rel string, data []byte, pre *dlopen.Prescan) *fileInfo {
	switch {
	case elfinfo.IsELF(data):
		info, err := elfinfo.ReadPrescanned(data, pre)
		fi := &fileInfo{kind: libOther, err: err}
		if info != nil {
			switch info.Type {
			case elf.ET_DYN:
				fi.kind = libShared
				fi.versionDefs, fi.comments = info.VersionDefs, info.Comments
				fi.runtimeLoads, fi.runtimeLoadsOmitted = info.RuntimeLoads, info.RuntimeLoadsOmitted
			case elf.ET_REL:
				fi.kind = libObject
			}
			fi.soname, fi.needed, fi.archs, fi.images = info.Soname, info.Needed, info.Archs(), info.Images
		}
		return fi
	case elfinfo.IsArchive(data):
		return inspectArchive(data)
	case isLibraryName(path.Base(rel)):
		if isLinkerScript(data) {
			return &fileInfo{kind: libLinkerScript}
		}
		return &fileInfo{kind: libOther}
	}
	return nil
}

// inspectArchive collects the architectures of every ELF member of a
// static archive, as cuobjdump does for *.a files.
func inspectArchive(data []byte) *fileInfo {
	fi := &fileInfo{kind: libStatic}
	members, err := elfinfo.Members(data)
	if err != nil {
		fi.err = err
	}
	var images []fatbin.Entry
	for _, m := range members {
		if !elfinfo.IsELF(m.Data) {
			continue
		}
		info, err := elfinfo.Read(m.Data)
		if info != nil {
			images = append(images, info.Images...)
		}
		if err != nil && fi.err == nil {
			fi.err = fmt.Errorf("member %s: %w", m.Name, err)
		}
	}
	fi.archs, fi.images = fatbin.Archs(images), images
	return fi
}

// isLinkerScript recognises GNU ld scripts installed as lib*.so, such as
// glibc's libc.so or a CUDA stub redirect.
// linkerScriptHead is how much of a file isLinkerScript reads: all that
// inspect reads of a file that is neither ELF nor a static archive.
const linkerScriptHead = 512

func isLinkerScript(data []byte) bool {
	head := data[:min(len(data), linkerScriptHead)]
	s := strings.TrimLeft(string(head), " \t\r\n")
	for _, p := range []string{"/*", "INPUT", "GROUP", "OUTPUT_FORMAT", "SEARCH_DIR"} {
		if strings.HasPrefix(s, p) {
			return bytes.IndexByte(head, 0) < 0
		}
	}
	return false
}

func sortedUnique(in []string) []string {
	if len(in) == 0 {
		return []string{}
	}
	s := append([]string(nil), in...)
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
