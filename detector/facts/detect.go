package facts

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Options tune Detect.
type Options struct {
	// NarHash is the tree's NAR hash when the caller knows it (Nix
	// computed it when it registered the tree; any encoding Nix prints).
	// The walk then hashes nothing and reads files only for what it
	// detects. Empty: the walk computes it.
	NarHash string
	// MaxBytes bounds the file content the walk reads and hashes (0:
	// DefaultMaxBytes). A hard-linked file counts once per name, as the
	// NAR holds it.
	MaxBytes int64
	// MaxEntries bounds the files, directories and symlinks the walk
	// visits (0: DefaultMaxEntries).
	MaxEntries int
}

// The walk's bounds default to unpack's: any tree unpack writes is
// detected, and a tree made some other way (hard links to one large file,
// say) costs at most what unpack would have allowed before it is refused.
const (
	DefaultMaxBytes   int64 = 64 << 30
	DefaultMaxEntries       = 1_000_000
)

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	return o
}

// Detect walks the unpacked tree at root and returns its facts: what the
// tree holds, its ELF and fatbin facts, its NAR hash and its listing
// (Tree). What rules derive from them (the buildRedist simulation) is
// lib/buildredist.Complete's, run by the aggregate: a change of
// those rules then re-detects nothing.
func Detect(root string) (*features.Features, error) {
	return DetectWith(root, Options{})
}

// DetectWith is Detect with options.
func DetectWith(root string, opts Options) (*features.Features, error) {
	f, _, err := detectTree(root, opts)
	return f, err
}

// detectTree is DetectWith, giving the tree walked too (nil when the
// walk failed): the tests bound its work (export_test.go).
func detectTree(root string, opts Options) (*features.Features, *tree, error) {
	t, narHash, err := scan(root, opts.withDefaults())
	if err != nil {
		return nil, nil, fmt.Errorf("detect %s: %w", root, err)
	}
	f := t.features()
	if t.err != nil {
		return nil, t, fmt.Errorf("detect %s: %w", root, t.err)
	}
	f.NarHash = narHash
	f.Tree = t.buildRedistTree()
	if f.Licence, err = ReadLicence(root); err != nil {
		return nil, t, fmt.Errorf("detect %s: %w", root, err)
	}
	return f, t, nil
}

func (t *tree) features() *features.Features {
	f := &features.Features{
		Outputs:           t.outputs(),
		CudaVersionsInLib: t.cudaVersionsInLib(),
		Headers:           t.headers(),
		PythonModules:     t.pythonModules(),
		Libraries:         t.libraries(),
	}
	f.LibLayout, f.CudaArchitectures, f.ProvidedLibs, f.NeededLibs = t.libGroups()
	if t.detail.err != nil && t.err == nil {
		t.err = t.detail.err
	}
	return f
}

// outputs applies the output rules of docs/detection.md.
func (t *tree) outputs() map[string]bool {
	anyDir := func(dirs ...string) bool {
		for _, d := range dirs {
			if t.nonEmptyDir(d) {
				return true
			}
		}
		return false
	}
	hasFiles := func(dir string, match func(string) bool) bool {
		return t.nonEmptyDir(dir) && len(t.files(dir, match)) > 0
	}
	isSO, isA := hasSuffix(".so"), hasSuffix(".a")
	isLib := hasSuffix(".so", ".a")
	return map[string]bool{
		"out":     true,
		"bin":     t.nonEmptyDir("bin") && len(t.executables("bin")) > 0,
		"dev":     anyDir("include", "lib/pkgconfig", "share/pkgconfig", "lib/cmake", "share/aclocal"),
		"doc":     anyDir("share/info", "share/doc", "share/gtk-doc", "share/devhelp", "share/man"),
		"include": t.nonEmptyDir("include"),
		"lib":     hasFiles("lib", isSO),
		"python":  t.nonEmptyDir("python") || len(t.sitePackagesModules()) > 0,
		"sample":  t.nonEmptyDir("samples"),
		"static":  hasFiles("lib", isA),
		"stubs":   hasFiles("lib/stubs", isLib) || hasFiles("stubs", isLib),
	}
}

// executables are files below dir with an executable bit (after following
// symlinks) or a Windows executable suffix. Upstream tested
// `st_mode | 0o111`, which is always true; this tests the bit.
func (t *tree) executables(dir string) []string {
	var out []string
	for _, p := range t.files(dir, func(string) bool { return true }) {
		n, _ := t.follow(p)
		switch path.Ext(p) {
		case ".exe", ".dll", ".bat":
			out = append(out, p)
			continue
		}
		if n.exec {
			out = append(out, p)
		}
	}
	return out
}

var cudaVersionDir = regexp.MustCompile(`^\d+(\.\d+)?$`)

// cudaVersionsInLib names the lib/<major> directories that nixpkgs swaps in
// for lib/ (cuTENSOR, cuQuantum and others ship lib/11 and lib/12).
func (t *tree) cudaVersionsInLib() []string {
	out := []string{}
	if !t.nonEmptyDir("lib") {
		return out
	}
	for _, p := range t.entries("lib") {
		name := path.Base(p)
		if cudaVersionDir.MatchString(name) && t.nonEmptyDir(p) {
			out = append(out, name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return versionLess(out[i], out[j]) })
	return out
}

func versionLess(a, b string) bool {
	if len(a) != len(b) && !strings.Contains(a+b, ".") {
		return len(a) < len(b)
	}
	return a < b
}

func (t *tree) headers() []string {
	if !t.nonEmptyDir("include") {
		return []string{}
	}
	return nonNil(t.files("include", hasSuffix(".h", ".hh", ".hpp", ".hxx")))
}

// sitePackagesModules is upstream main's python rule:
// lib/python*/site-packages/**/*.py.
func (t *tree) sitePackagesModules() []string {
	var out []string
	if !t.nonEmptyDir("lib") {
		return out
	}
	for _, p := range t.entries("lib") {
		if strings.HasPrefix(path.Base(p), "python") && t.isDir(p) {
			sp := path.Join(p, "site-packages")
			if t.nonEmptyDir(sp) {
				out = append(out, t.files(sp, hasSuffix(".py"))...)
			}
		}
	}
	return out
}

func (t *tree) pythonModules() []string {
	out := t.sitePackagesModules()
	if t.nonEmptyDir("python") {
		out = append(out, t.files("python", hasSuffix(".py", ".whl"))...)
	}
	return sortedUnique(out)
}

// libraries records every library-named path: regular files with what the
// ELF reader found, and *.so-style symlinks that dangle (symlinks that
// resolve are covered by their target's record).
func (t *tree) libraries() []features.Library {
	out := []features.Library{}
	var rels []string
	for rel := range t.nodes {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		n := t.nodes[rel]
		if !isLibraryName(path.Base(rel)) {
			continue
		}
		lib := features.Library{Path: rel, Needed: []string{}, CudaArchitectures: []string{}, SASSArchitectures: []string{},
			PTXArchitectures: []string{}, FatbinEntries: []features.FatbinEntry{}, Stub: isStubPath(rel)}
		switch {
		case n.kind == kindSymlink:
			if _, ok := t.resolve(rel); ok {
				continue
			}
			lib.Kind = libDanglingSymlink
		case n.kind == kindFile && n.file != nil:
			fi := n.file
			lib.Kind, lib.Soname = fi.kind, fi.soname
			lib.Needed = nonNil(fi.needed)
			lib.VersionDefinitions, lib.Comments = fi.versionDefs, fi.comments
			lib.RuntimeLoads, lib.RuntimeLoadsOmitted = fi.runtimeLoads, fi.runtimeLoadsOmitted
			fi.describeDeviceCode(&lib)
			if fi.err != nil {
				lib.Error = fi.err.Error()
			}
			if !t.detail.charge(detailBytes(&lib), rel) {
				return out
			}
		case n.kind == kindFile:
			lib.Kind = libOther
		default:
			continue
		}
		out = append(out, lib)
	}
	return out
}

// detailBytes is what a library record repeats from its file's content
// (its path is the tree's own).
func detailBytes(lib *features.Library) int {
	return len(lib.Soname) + stringsBytes(lib.Needed) + stringsBytes(lib.CudaArchitectures) + stringsBytes(lib.SASSArchitectures) +
		stringsBytes(lib.PTXArchitectures) + fatbinGroupBytes*len(lib.FatbinEntries) + stringsBytes(lib.FatbinWarnings) + len(lib.Error) +
		stringsBytes(lib.VersionDefinitions) + stringsBytes(lib.Comments) + runtimeLoadBytes(lib.RuntimeLoads)
}

// runtimeLoadBytes is what the runtime loads of a record cost in the
// JSON: their strings and a field's worth of keys each.
func runtimeLoadBytes(loads []features.RuntimeLoad) int {
	n := 0
	for _, l := range loads {
		n += len(l.Name) + len(l.Glob) + len(l.Confidence) + len(l.Feature) + len(l.Description) + len(l.Priority) + fatbinGroupBytes
		for _, e := range l.Evidence {
			n += len(e.Kind) + len(e.Section) + len(e.String) + fatbinGroupBytes
		}
	}
	return n
}

func isStubPath(rel string) bool {
	for _, c := range strings.Split(path.Dir(rel), "/") {
		if c == "stubs" {
			return true
		}
	}
	return false
}

// ignoredLibDirs are skipped when grouping lib/ by subdirectory (upstream).
var ignoredLibDirs = map[string]bool{"stubs": true, "cmake": true, "Win32": true, "x64": true}

// libGroups computes cudaArchitectures, providedLibs and neededLibs with
// upstream's grouping: lib/*.so as one list, or lib/<subdir>/*.so as a map
// of lists. Only direct children count, as upstream's iterdir did.
func (t *tree) libGroups() (layout string, archs, provided, needed features.Grouped) {
	empty := features.Grouped{List: []string{}}
	if !t.nonEmptyDir("lib") {
		return "none", empty, empty, empty
	}
	files, dirs := t.libEntries()
	switch {
	case len(files) == 0 && len(dirs) == 0:
		return "none", empty, empty, empty
	case len(dirs) == 0:
		a, p, n := t.libsOf(files)
		return "files", features.Grouped{List: a}, features.Grouped{List: p}, features.Grouped{List: n}
	}
	archs.Groups, provided.Groups, needed.Groups = map[string][]string{}, map[string][]string{}, map[string][]string{}
	add := func(key string, paths []string) bool {
		a, p, n := t.libsOf(paths)
		archs.Groups[key], provided.Groups[key], needed.Groups[key] = a, p, n
		return t.detail.charge(3*len(key)+stringsBytes(a)+stringsBytes(p)+stringsBytes(n), "lib/"+key)
	}
	for _, d := range dirs {
		if !add(path.Base(d), t.entries(d)) {
			break
		}
	}
	layout = "subdirs"
	if len(files) > 0 {
		layout = "mixed"
		add(".", files)
	}
	return layout, archs, provided, needed
}

// libEntries are lib/'s direct children that count: its *.so files, and
// its subdirectories but ignoredLibDirs.
func (t *tree) libEntries() (files, dirs []string) {
	isSO := hasSuffix(".so")
	for _, p := range t.entries("lib") {
		name := path.Base(p)
		switch {
		case t.isDir(p):
			if !ignoredLibDirs[name] {
				dirs = append(dirs, p)
			}
		case isSO(name) && t.isFile(p):
			files = append(files, p)
		}
	}
	return files, dirs
}

// libsOf is the architectures, sonames and needed libraries of the *.so
// files among paths.
func (t *tree) libsOf(paths []string) (archs, sonames, needed []string) {
	isSO := hasSuffix(".so")
	for _, rel := range paths {
		node, _ := t.follow(rel)
		if node == nil || node.kind != kindFile || node.file == nil || !isSO(path.Base(rel)) {
			continue
		}
		archs = append(archs, node.file.archs...)
		if node.file.soname != "" {
			sonames = append(sonames, node.file.soname)
		}
		needed = append(needed, node.file.needed...)
	}
	return archList(archs), sortedUnique(sonames), sortedUnique(needed)
}

func archList(a []string) []string {
	out := sortedUnique(a)
	fatbin.SortArchs(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
