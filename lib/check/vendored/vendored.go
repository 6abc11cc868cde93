package vendored

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// FromDetail lists the archives of a detail.json, sorted by package,
// platform and variant.
func FromDetail(detail features.Detail) []manifest.DetectedArchive {
	var out []manifest.DetectedArchive
	for _, a := range manifest.DetailArchives(detail) {
		if a.Features != nil {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Package+"\x00"+a.Platform+"\x00"+a.Variant.String() < b.Package+"\x00"+b.Platform+"\x00"+b.Variant.String()
	})
	return out
}

// NVIDIASonames maps each soname an archive provides in lib/ (its
// providedLibs: the libraries Nixpkgs' buildRedist installs for others to
// link) to the packages providing it. These are NVIDIA's: never vendored.
func NVIDIASonames(archives []manifest.DetectedArchive) map[string][]string {
	out := map[string][]string{}
	for _, a := range archives {
		for _, s := range flatten(a.Features.ProvidedLibs) {
			if !slices.Contains(out[s], a.Package) {
				out[s] = append(out[s], a.Package)
				sort.Strings(out[s])
			}
		}
	}
	return out
}

func flatten(g features.Grouped) []string {
	out := append([]string(nil), g.List...)
	for _, l := range g.Groups {
		out = append(out, l...)
	}
	return out
}

// Library is one vendored library of an archive.
type Library struct {
	Path string `json:"path"`
	// Name is the soname, or the file name of a library without one (a
	// plugin): what the index was asked.
	Name   string `json:"name"`
	Soname string `json:"soname"`
	// Upstream is the likely upstream project or library (Qt6Core,
	// OpenSSL, libstdc++, Boost, ICU), from the name, the version
	// definitions and the folder.
	Upstream string `json:"upstream"`
	// Index are the entries of the soname index that match: what provides
	// the library in a free distribution.
	Index []sonameindex.Match `json:"index"`
	// Evidence lists what decided (the index) and what supports it (the
	// version definitions, the compiler, the folder), one line each.
	Evidence []string `json:"evidence"`
	// NeededBy are the archive's libraries whose DT_NEEDED names it:
	// what breaks if it is removed without a replacement.
	NeededBy []string `json:"neededBy"`
}

// Tie is a library a free distribution ships too, kept as NVIDIA's
// because a package of the manifests provides its soname in lib/.
type Tie struct {
	Path     string   `json:"path"`
	Name     string   `json:"name"`
	Packages []string `json:"nvidiaPackages"`
	Index    []string `json:"index"`
}

// Result is one archive's vendored libraries.
type Result struct {
	Package  string           `json:"package"`
	Platform string           `json:"platform"`
	Variant  manifest.Variant `json:"variant"`
	Vendored []Library        `json:"vendored"`
	// NVIDIA are the ties decided for NVIDIA (see Tie).
	NVIDIA []Tie `json:"nvidia"`
}

// Check classifies the shared libraries of every archive; nvidia is
// NVIDIASonames of the release (or of all releases read). Archives
// without a vendored library or a tie are left out.
func Check(archives []manifest.DetectedArchive, nvidia map[string][]string, ix *sonameindex.Index) []Result {
	out := []Result{}
	for _, a := range archives {
		r := CheckArchive(a, nvidia, ix)
		if len(r.Vendored) > 0 || len(r.NVIDIA) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// CheckArchive classifies the shared libraries of one archive, in path
// order.
func CheckArchive(a manifest.DetectedArchive, nvidia map[string][]string, ix *sonameindex.Index) Result {
	r := Result{Package: a.Package, Platform: a.Platform, Variant: a.Variant, Vendored: []Library{}, NVIDIA: []Tie{}}
	libs := a.Features.Libraries
	var needers map[string][]string // built on the first vendored library
	for _, lib := range libs {
		if lib.Kind != "shared" || lib.Stub {
			continue // static archives and objects get linked in, not loaded; stubs are NVIDIA's link-time stand-ins
		}
		name := lib.Soname
		if name == "" {
			name = path.Base(lib.Path)
		}
		matches := ix.Lookup(name, path.Base(path.Dir(lib.Path)))
		if len(matches) == 0 {
			continue
		}
		if pkgs := nvidia[name]; len(pkgs) > 0 {
			r.NVIDIA = append(r.NVIDIA, Tie{Path: lib.Path, Name: name, Packages: pkgs, Index: matchNames(matches)})
			continue
		}
		if needers == nil {
			needers = neededIndex(libs)
		}
		r.Vendored = append(r.Vendored, Library{Path: lib.Path, Name: name, Soname: lib.Soname,
			Upstream: Upstream(lib), Index: matches, Evidence: evidence(lib, matches), NeededBy: neededBy(needers, lib)})
	}
	return r
}

func matchNames(ms []sonameindex.Match) []string {
	var out []string
	for _, m := range ms {
		s := m.Name + " (" + m.Provider + ")"
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// evidence is one line per fact: the index match first (it decides).
func evidence(lib features.Library, ms []sonameindex.Match) []string {
	how := map[string]string{sonameindex.MatchExact: "same name", sonameindex.MatchVersion: "another version",
		sonameindex.MatchRenamed: "renamed (-shared build of)"}[ms[0].How]
	where := ""
	if ms[0].Folder != "" {
		where = " in a folder " + ms[0].Folder + "/"
	}
	out := []string{fmt.Sprintf("index, %s%s: %s", how, where, strings.Join(matchNames(ms), ", "))}
	if len(lib.VersionDefinitions) > 0 {
		out = append(out, "version definitions: "+strings.Join(firstN(lib.VersionDefinitions, 4), ", "))
	}
	if len(lib.Comments) > 0 {
		out = append(out, "compiler: "+strings.Join(firstN(lib.Comments, 2), "; "))
	}
	for _, c := range strings.Split(path.Dir(lib.Path), "/") {
		switch {
		case strings.EqualFold(c, "plugins"):
			out = append(out, "path: "+c+"/ (a plugin folder)")
		case strings.HasPrefix(c, "host-") || strings.HasPrefix(c, "linux-desktop"):
			out = append(out, "path: "+c+"/ (a host tool's folder, not lib/)")
		}
	}
	return out
}

func firstN(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(append([]string(nil), list[:n]...), fmt.Sprintf("… %d more", len(list)-n))
}

// neededIndex maps each needed soname to the paths of the libraries that
// need it, in the archive's order: one pass over every DT_NEEDED, so an
// archive of 10,000 libraries costs their entries, not their square.
func neededIndex(libs []features.Library) map[string][]string {
	out := map[string][]string{}
	for _, l := range libs {
		for _, n := range l.Needed {
			if ps := out[n]; len(ps) == 0 || ps[len(ps)-1] != l.Path {
				out[n] = append(ps, l.Path)
			}
		}
	}
	return out
}

// neededBy lists the paths of the archive's libraries that need lib, by
// its soname (a library without one is dlopen'ed, needed by none).
func neededBy(needers map[string][]string, lib features.Library) []string {
	out := []string{}
	if lib.Soname == "" {
		return out
	}
	for _, p := range needers[lib.Soname] {
		if p != lib.Path {
			out = append(out, p)
		}
	}
	return out
}
