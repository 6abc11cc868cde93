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
	// MaxPerName bounds the entries kept for one name: a name's first
	// providers are evidence enough that a free distribution ships it,
	// and a lookup then returns at most this many (nix-locate lists every
	// package that bundles a libstdc++.so.6). Later ones are counted in
	// Dropped, not kept.
	MaxPerName = 64
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

// Index is the names of one or more index files. It is held compact,
// names and entries in slices and indexes into them, about 120 bytes
// per entry: at MaxEntries a few hundred megabytes, where a map of
// entries and a slice of them per name took 1.1 GB and failed under a
// 2 GB address-space limit before the refusal (docs/safety.md).
type Index struct {
	byName  map[string]int32 // name → its record in names
	byStem  map[string]int32 // stem (libfoo.so) → the last name with it added
	names   []nameRec
	entries []entryRec
	strs    []string         // providers and folders, stored once
	strID   map[string]int32 // their indexes in strs
	dropped int
	skipped int
	// limit is MaxEntries (tests set a smaller one).
	limit int
	// Sources are the files read, in order.
	Sources []string
}

// nameRec is one distinct name: its entries are a chain through
// entryRec.next from first, and the names of one stem a chain through
// nextStem.
type nameRec struct {
	name     string
	first    int32
	n        int32 // entries in the chain, at most MaxPerName
	nextStem int32 // -1 ends the chain
}

// entryRec is one entry: its folder's and provider's indexes in strs,
// and the name's next entry (-1 ends the chain).
type entryRec struct{ folder, provider, next int32 }

// New returns an empty index.
func New() *Index {
	return &Index{byName: map[string]int32{}, byStem: map[string]int32{}, strID: map[string]int32{}, limit: MaxEntries}
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
func (ix *Index) Len() int { return len(ix.entries) }

// Dropped is the number of lines left out because their name already had
// MaxPerName entries (a repeated line counts each time).
func (ix *Index) Dropped() int { return ix.dropped }

// Skipped is the number of nix-locate lines left out because their file
// is not under a store path's lib/ (`/nix/store/…-foo/opt/foo/lib/libx.so`):
// what `nix-locate --regex '/lib/.*\.so'` lists besides the libraries of
// lib/, not a library on a package's linker path.
func (ix *Index) Skipped() int { return ix.skipped }

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
		ix.skipped++ // another folder's lib/ (opt/foo/lib/): counted, not an error
		return nil
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
	id, known := ix.byName[name]
	last := int32(-1)
	if known {
		// A string not yet stored (-1) is in no entry.
		f, p := ix.strIndex(folder), ix.strIndex(provider)
		for e := ix.names[id].first; e >= 0; e = ix.entries[e].next {
			if ix.entries[e].folder == f && ix.entries[e].provider == p {
				return nil // a repeated line: one walk of at most MaxPerName
			}
			last = e
		}
		if ix.names[id].n == MaxPerName {
			ix.dropped++
			return nil
		}
	}
	// Counted as the lines stream, before anything is added: memory
	// stays in proportion to the limit, whatever the input's size.
	if len(ix.entries) >= ix.limit {
		return fmt.Errorf("more than %d entries", ix.limit)
	}
	e := int32(len(ix.entries))
	ix.entries = append(ix.entries, entryRec{folder: ix.intern(folder), provider: ix.intern(provider), next: -1})
	if known {
		ix.entries[last].next = e
		ix.names[id].n++
		return nil
	}
	// Cloned: name is a part of the line read, which must not stay alive.
	name = strings.Clone(name)
	id = int32(len(ix.names))
	st := Stem(name)
	next, ok := ix.byStem[st]
	if !ok {
		next = -1
	}
	ix.names = append(ix.names, nameRec{name: name, first: e, n: 1, nextStem: next})
	ix.byName[name] = id
	ix.byStem[st] = id
	return nil
}

// strIndex is the index of s in strs, -1 when it is not there.
func (ix *Index) strIndex(s string) int32 {
	if v, ok := ix.strID[s]; ok {
		return v
	}
	return -1
}

// intern stores s once and returns its index.
func (ix *Index) intern(s string) int32 {
	if v, ok := ix.strID[s]; ok {
		return v
	}
	s = strings.Clone(s)
	v := int32(len(ix.strs))
	ix.strs = append(ix.strs, s)
	ix.strID[s] = v
	return v
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
	if id, ok := ix.byName[name]; ok {
		if m := ix.matches([]int32{id}, folder, MatchExact); len(m) > 0 {
			return m
		}
	}
	stem := Stem(name)
	if m := ix.matches(ix.withStem(stem), folder, MatchVersion); len(m) > 0 {
		return m
	}
	for _, suffix := range []string{"-shared.so", "_shared.so"} {
		if base, ok := strings.CutSuffix(stem, suffix); ok {
			return ix.matches(ix.withStem(base+".so"), folder, MatchRenamed)
		}
	}
	return nil
}

// withStem are the names of a stem.
func (ix *Index) withStem(stem string) []int32 {
	id, ok := ix.byStem[stem]
	if !ok {
		return nil
	}
	var out []int32
	for ; id >= 0; id = ix.names[id].nextStem {
		out = append(out, id)
	}
	return out
}

func (ix *Index) matches(ids []int32, folder, how string) []Match {
	var out []Match
	for _, id := range ids {
		n := ix.names[id]
		for e := n.first; e >= 0; e = ix.entries[e].next {
			en := Entry{Name: n.name, Folder: ix.strs[ix.entries[e].folder], Provider: ix.strs[ix.entries[e].provider]}
			if en.Folder == "" || strings.EqualFold(en.Folder, folder) {
				out = append(out, Match{Entry: en, How: how})
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
