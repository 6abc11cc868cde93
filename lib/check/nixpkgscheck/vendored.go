package nixpkgscheck

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/vendored"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// KindVendoredLibrary is the hint for a vendored library (docs/vendored.md)
// that the package file keeps.
const KindVendoredLibrary = "vendoredLibrary"

// VendoredCheck turns on the vendored-library hints: Index is the soname
// index, ReadFile reads a package file (relative to the packages
// directory) for the patterns it removes.
type VendoredCheck struct {
	Index    *sonameindex.Index
	ReadFile func(file string) ([]byte, error)
}

// nixString matches a double-quoted Nix string; antiquotations and shell
// variables ($out) in it are read as a wildcard (see removalPatterns).
var (
	nixString     = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	antiquotation = regexp.MustCompile(`\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)
)

// removalPatterns are the strings of a package file read as globs:
// `"${hostDir}/libQt6*"` becomes `*/libQt6*`. The file keeps a library
// when none of them matches the library's file name or a tail of its path
// (the shape of an rmPatterns list, or of any `rm` of a literal path).
func removalPatterns(text []byte) []string {
	var out []string
	for _, m := range nixString.FindAllSubmatch(text, -1) {
		s := antiquotation.ReplaceAllString(string(m[1]), "*")
		if (strings.Contains(s, "lib") || strings.Contains(s, "*")) && literalName(s) {
			out = append(out, strings.TrimPrefix(s, "./"))
		}
	}
	return out
}

// literalName: the pattern's last path component has a character that
// is no wildcard. A string of variables alone ("$path" in a removal loop,
// "$out/${dir}") would read as "*" or "*/*" and match every library.
func literalName(pattern string) bool {
	return strings.Trim(path.Base(pattern), "*?") != ""
}

// removed reports whether a pattern matches p's file name or a tail of p.
// A leading antiquotation (`*/`) may also stand for the tree's root
// ("$out/lib/libfoo.so.1" matches lib/libfoo.so.1).
func removed(patterns []string, p string) bool {
	parts := strings.Split(p, "/")
	for _, pat := range patterns {
		for i := range parts {
			tail := strings.Join(parts[i:], "/")
			if ok, _ := path.Match(pat, tail); ok {
				return true
			}
			if rest, cut := strings.CutPrefix(pat, "*/"); cut {
				if ok, _ := path.Match(rest, tail); ok {
					return true
				}
			}
		}
	}
	return false
}

// vendoredFindings are the hints for the vendored libraries of an archive
// its package file keeps. nvidia is the release's NVIDIA sonames.
func (p *Plan) vendoredFindings(tg target, base Finding, file string, nvidia map[string][]string) []Finding {
	vc := p.in.Vendored
	r := vendored.CheckArchive(tg.DetectedArchive, nvidia, vc.Index)
	if len(r.Vendored) == 0 {
		return nil
	}
	text, err := vc.ReadFile(file)
	if err != nil {
		f := base
		f.Level, f.Kind, f.File, f.Message = LevelHint, KindVendoredLibrary, file, fmt.Sprintf("%d vendored libraries not compared with the file: %v", len(r.Vendored), err)
		return []Finding{f}
	}
	patterns := removalPatterns(text)
	var out []Finding
	for _, v := range r.Vendored {
		if removed(patterns, v.Path) {
			continue
		}
		f := base
		f.Level, f.Kind, f.File, f.Path = LevelHint, KindVendoredLibrary, file, v.Path
		f.Message = fmt.Sprintf("vendored %s (%s), which %s ships; the file keeps it (no string of it matches the path)%s",
			v.Upstream, v.Name, v.Index[0].Provider, neededByText(v.NeededBy))
		out = append(out, f)
	}
	return out
}

func neededByText(paths []string) string {
	switch len(paths) {
	case 0:
		return ""
	case 1:
		return "; " + path.Base(paths[0]) + " needs it"
	}
	return fmt.Sprintf("; %d libraries of the archive need it", len(paths))
}

// nvidiaSonames are the sonames the checked archives provide in lib/.
func (p *Plan) nvidiaSonames() map[string][]string {
	var as []manifest.DetectedArchive
	for _, tg := range p.targets {
		if tg.Features != nil {
			as = append(as, tg.DetectedArchive)
		}
	}
	return vendored.NVIDIASonames(as)
}

// KeptVendored groups the vendoredLibrary findings by package file: the
// paths of the vendored libraries each file keeps, sorted (what
// check-nixpkgs --fix --remove-vendored proposes to remove).
func KeptVendored(findings []Finding) map[string][]string {
	out := map[string][]string{}
	for _, f := range findings {
		if f.Kind == KindVendoredLibrary && f.Path != "" && !slices.Contains(out[f.File], f.Path) {
			out[f.File] = append(out[f.File], f.Path)
		}
	}
	for _, l := range out {
		sort.Strings(l)
	}
	return out
}
