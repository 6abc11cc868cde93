package sonameindex

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// Bounds of an index (docs/safety.md): a line is read into a buffer of
// MaxLineLen bytes, never more, so an index of any size streams with
// memory per line bounded; what is kept grows with its distinct entries,
// at most MaxEntries of them.
const (
	MaxLineLen = 64 << 10
	MaxEntries = 1 << 21
)

//go:embed debian-bookworm-main.sonames
var debianBookworm string

// DefaultSource names the embedded index.
const DefaultSource = "debian-bookworm-main.sonames (embedded)"

// Entry is one name a distribution ships.
type Entry struct {
	Name string `json:"name"`
	// Folder is "" for a name in a folder the dynamic linker searches,
	// else the name of the only folders it is in ("imageformats"): a
	// plugin, which a library of an archive matches only in a folder of
	// that name.
	Folder   string `json:"folder,omitempty"`
	Provider string `json:"provider"`
}

// Index is the names of one or more index files.
type Index struct {
	byName  map[string][]Entry
	byStem  map[string][]string // stem (libfoo.so) → the names with it
	strs    map[string]string   // providers and folders, stored once
	entries int
	// Sources are the files read, in order.
	Sources []string
}

// New returns an empty index.
func New() *Index {
	return &Index{byName: map[string][]Entry{}, byStem: map[string][]string{}, strs: map[string]string{}}
}

// Default returns the embedded index (Debian bookworm main).
func Default() *Index {
	ix := New()
	if err := ix.Read(strings.NewReader(debianBookworm), DefaultSource); err != nil {
		panic(fmt.Sprintf("embedded soname index: %v", err)) // a bug of the build: tests read it
	}
	return ix
}

// Len is the number of distinct entries.
func (ix *Index) Len() int { return ix.entries }

// Read adds the lines of r, an index file named source. An error names
// the source and line; the entries of the lines before it stay.
func (ix *Index) Read(r io.Reader, source string) error {
	ix.Sources = append(ix.Sources, source)
	br := bufio.NewReaderSize(r, MaxLineLen)
	provider := source
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("soname index %s line %d: longer than %d bytes", source, n, MaxLineLen)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("soname index %s line %d: %w", source, n, err)
		}
		if len(line) > 0 {
			if perr := ix.line(string(line), &provider); perr != nil {
				return fmt.Errorf("soname index %s line %d: %w", source, n, perr)
			}
		}
		if err != nil {
			return nil
		}
	}
}

// line reads one line; provider is the one of name-only lines, which a
// `#! provider TEXT` line sets.
func (ix *Index) line(s string, provider *string) error {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutPrefix(s, "#!"); ok {
		key, val, _ := strings.Cut(strings.TrimSpace(d), " ")
		if key != "provider" || strings.TrimSpace(val) == "" {
			return fmt.Errorf("unknown directive %q (only `#! provider TEXT`)", s)
		}
		*provider = strings.TrimSpace(val)
		return nil
	}
	if s == "" || s[0] == '#' {
		return nil
	}
	f := strings.Fields(s)
	switch {
	case len(f) == 1:
		return ix.add(f[0], "", *provider)
	case len(f) == 2 && strings.HasSuffix(f[1], "/"):
		return ix.add(f[0], strings.TrimSuffix(f[1], "/"), *provider)
	case len(f) == 2:
		return ix.add(f[0], "", f[1])
	case len(f) == 4 && strings.HasPrefix(f[3], "/nix/store/"):
		return ix.nixLocate(f)
	}
	return errors.New("neither `NAME`, `NAME PROVIDER`, `NAME FOLDER/` nor nix-locate's `ATTR SIZE TYPE /nix/store/PATH`")
}

// nixLocate reads a line of `nix-locate --regex 'lib/.*\.so'`: the
// attribute (in parentheses when nix-locate found it indirectly), the
// size, the type (r, x, s, d) and the store path. A directory is skipped;
// a file directly in the store path's lib/ is on the linker's path, one
// deeper is bound to its folder's name.
func (ix *Index) nixLocate(f []string) error {
	attr := strings.TrimSuffix(strings.TrimPrefix(f[0], "("), ")")
	if strings.Trim(f[1], "0123456789,") != "" {
		return fmt.Errorf("nix-locate line: size %q is not a number", f[1])
	}
	switch f[2] {
	case "d":
		return nil
	case "r", "x", "s":
	default:
		return fmt.Errorf("nix-locate line: type %q is none of r, x, s, d", f[2])
	}
	rest := strings.TrimPrefix(f[3], "/nix/store/")
	_, inStore, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(inStore, "lib/") {
		return fmt.Errorf("nix-locate line: %s is not under a store path's lib/", f[3])
	}
	dir, name := path.Split(inStore)
	if !isLibraryName(name) {
		return nil // nix-locate matched something else (libfoo.so.debug, a folder's file)
	}
	folder := ""
	if dir != "lib/" {
		folder = path.Base(dir)
	}
	return ix.add(name, folder, attr)
}

// isLibraryName: lib*.so or lib*.so.<version>, not a split debug file.
func isLibraryName(name string) bool {
	if !strings.HasPrefix(name, "lib") || strings.Contains(name, "/") || strings.HasSuffix(name, ".debug") {
		return false
	}
	_, ver, ok := strings.Cut(name, ".so")
	return ok && (ver == "" || ver[0] == '.' && len(ver) > 1 && ver[1] >= '0' && ver[1] <= '9')
}

func (ix *Index) add(name, folder, provider string) error {
	if !isLibraryName(name) {
		return fmt.Errorf("%q is not a library name (lib*.so or lib*.so.<version>)", name)
	}
	e := Entry{Name: name, Folder: ix.intern(folder), Provider: ix.intern(provider)}
	list, known := ix.byName[name]
	for _, o := range list {
		if o == e {
			return nil
		}
	}
	if ix.entries == MaxEntries {
		return fmt.Errorf("more than %d entries", MaxEntries)
	}
	ix.entries++
	ix.byName[name] = append(list, e)
	if !known {
		st := Stem(name)
		ix.byStem[st] = append(ix.byStem[st], name)
	}
	return nil
}

func (ix *Index) intern(s string) string {
	if v, ok := ix.strs[s]; ok {
		return v
	}
	ix.strs[s] = s
	return s
}

// Stem is a library name without its version: libfoo.so.1.2 → libfoo.so.
func Stem(name string) string {
	if i := strings.Index(name, ".so"); i >= 0 {
		return name[:i+3]
	}
	return name
}

// How a Match was found.
const (
	MatchExact   = "exact"        // the same name
	MatchVersion = "otherVersion" // the same library, another version (libicuuc.so.71 ↔ libicuuc.so.72)
	MatchRenamed = "renamed"      // libfoo-shared.so ↔ libfoo (the name of a CMake shared-library target)
)

// Match is an index entry that matches a library.
type Match struct {
	Entry
	How string `json:"how"`
}

// Lookup returns the entries that match a library named name (its soname,
// or its file name without one) in a folder named folder: the same name;
// else the same library in another version; else, for libfoo-shared.so or
// libfoo_shared.so, libfoo. An entry bound to a folder matches only in a
// folder of that name (case aside). Sorted by name, folder, provider.
func (ix *Index) Lookup(name, folder string) []Match {
	if m := ix.matches([]string{name}, folder, MatchExact); len(m) > 0 {
		return m
	}
	stem := Stem(name)
	if m := ix.matches(ix.byStem[stem], folder, MatchVersion); len(m) > 0 {
		return m
	}
	for _, suffix := range []string{"-shared.so", "_shared.so"} {
		if base, ok := strings.CutSuffix(stem, suffix); ok {
			return ix.matches(ix.byStem[base+".so"], folder, MatchRenamed)
		}
	}
	return nil
}

func (ix *Index) matches(names []string, folder, how string) []Match {
	var out []Match
	for _, n := range names {
		for _, e := range ix.byName[n] {
			if e.Folder == "" || strings.EqualFold(e.Folder, folder) {
				out = append(out, Match{Entry: e, How: how})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Folder != b.Folder {
			return a.Folder < b.Folder
		}
		return a.Provider < b.Provider
	})
	return out
}
