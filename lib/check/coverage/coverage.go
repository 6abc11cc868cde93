package coverage

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/capability"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Capability is one entry of Nixpkgs' cudaCapabilities.
type Capability struct {
	// Name is the entry as given: "10.0f".
	Name string
	// GPU is the compute capability of the GPU it names: 10.0.
	GPU capability.Capability
	// Kind is the code the user asks Nixpkgs to build for it (generic,
	// family f, specific a). It does not change which prebuilt cubins
	// run on the GPU.
	Kind capability.Kind
}

// Parse reads one cudaCapabilities entry: MAJOR.MINOR with an optional a
// or f suffix.
func Parse(s string) (Capability, error) {
	c := Capability{Name: s}
	gpu := s
	if n := len(s); n > 0 && (s[n-1] == 'a' || s[n-1] == 'f') {
		c.Kind, gpu = capability.Kind(s[n-1]), s[:n-1]
	}
	g, err := capability.ParseCapability(gpu)
	if err != nil {
		return Capability{}, fmt.Errorf("CUDA capability %q: want MAJOR.MINOR with an optional a or f suffix, as in Nixpkgs' cudaCapabilities (8.9, 10.0f, 12.0a)", s)
	}
	c.GPU = g
	return c, nil
}

// ParseList reads a comma-separated list of entries ("8.9,9.0,10.0f");
// spaces around entries are ignored, an empty or repeated entry is an
// error.
func ParseList(s string) ([]Capability, error) {
	var out []Capability
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("CUDA capabilities %q: empty entry (want a comma-separated list such as 8.9,9.0,10.0f)", s)
		}
		if seen[part] {
			return nil, fmt.Errorf("CUDA capabilities %q: %s given twice", s, part)
		}
		seen[part] = true
		c, err := Parse(part)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Names are the entries' names, in order.
func Names(caps []Capability) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = c.Name
	}
	return out
}

// Support is what a GPU gets from a library or an archive.
type Support string

const (
	// SASS: a cubin runs as is.
	SASS Support = "sass"
	// PTX: no cubin runs, but the driver can JIT-compile a PTX entry.
	PTX Support = "ptx"
	// None: nothing runs; the library fails on that GPU.
	None Support = "none"
	// NoDeviceCode: the library (or every library of the archive) has no
	// SASS and no PTX at all; not a gap.
	NoDeviceCode Support = "noDeviceCode"
)

// rank orders supports from the worst: the archive's support is the worst
// of its libraries'.
func (s Support) rank() int {
	switch s {
	case None:
		return 0
	case PTX:
		return 1
	case SASS:
		return 2
	}
	return 3
}

// Cell is what one GPU gets from one library.
type Cell struct {
	Support Support `json:"support"`
	// Targets are the library's targets that give Support: its SASS
	// targets that run on the GPU, or (for ptx) its PTX targets the
	// driver can compile for it. Empty for none.
	Targets []string `json:"targets"`
}

// Of computes the cell of a library with these SASS and PTX targets
// (cuobjdump's names: sm_90, sm_90a, sm_100f) for c.
func Of(sass, ptx []string, c Capability) (Cell, error) {
	if len(sass)+len(ptx) == 0 {
		return Cell{Support: NoDeviceCode, Targets: []string{}}, nil
	}
	cell := Cell{Support: None, Targets: []string{}}
	for _, pass := range []struct {
		names []string
		ok    func(capability.Target, capability.Capability) bool
		gives Support
	}{{sass, capability.Target.RunsSASS, SASS}, {ptx, capability.Target.JITs, PTX}} {
		for _, name := range pass.names {
			t, err := capability.ParseTarget(name)
			if err != nil {
				return Cell{}, err
			}
			if pass.ok(t, c.GPU) {
				cell.Targets = append(cell.Targets, name)
			}
		}
		if len(cell.Targets) > 0 {
			cell.Support = pass.gives
			capability.Sort(cell.Targets)
			return cell, nil
		}
	}
	return cell, nil
}

// Library is one library file's coverage.
type Library struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	// Coverage maps each capability's name to what it gets.
	Coverage map[string]Cell `json:"coverage"`
}

// Archive is one package, platform and variant.
type Archive struct {
	Package  string           `json:"package"`
	Platform string           `json:"platform"`
	Variant  manifest.Variant `json:"variant"`
	// Coverage maps each capability's name to the worst support among
	// the libraries with device code (the package runs on a GPU only if
	// each of them does); noDeviceCode when no library has any.
	Coverage map[string]Support `json:"coverage"`
	// Libraries are those with device code, by path. Stubs are left
	// out: they are for linking, never loaded.
	Libraries []Library `json:"libraries"`
}

// Gap is a library that nothing of runs on a capability's GPU.
type Gap struct {
	Package    string           `json:"package"`
	Platform   string           `json:"platform"`
	Variant    manifest.Variant `json:"variant"`
	Library    string           `json:"library"`
	Capability string           `json:"capability"`
	// SASS and PTX are the library's targets, to say what it has instead.
	SASS []string `json:"sass"`
	PTX  []string `json:"ptx"`
}

// Report is the coverage of a release (a detail.json).
type Report struct {
	Capabilities []string  `json:"capabilities"`
	Archives     []Archive `json:"archives"`
	// None lists every library and capability that gets nothing, the
	// cases a CI job fails on.
	None []Gap `json:"none"`
}

// OfArchive computes one archive's coverage from its detection result.
func OfArchive(arc manifest.Archive, f *features.Features, caps []Capability) (Archive, []Gap, error) {
	pkg, platform, variant := arc.Package, arc.Platform, arc.Variant
	a := Archive{Package: pkg, Platform: platform, Variant: variant, Coverage: map[string]Support{}, Libraries: []Library{}}
	var gaps []Gap
	for _, c := range caps {
		a.Coverage[c.Name] = NoDeviceCode
	}
	libs := append([]features.Library(nil), f.Libraries...)
	sort.SliceStable(libs, func(i, j int) bool { return libs[i].Path < libs[j].Path })
	for _, lib := range libs {
		if lib.Stub || len(lib.SASSArchitectures)+len(lib.PTXArchitectures) == 0 {
			continue
		}
		l := Library{Path: lib.Path, Kind: lib.Kind, Coverage: map[string]Cell{}}
		for _, c := range caps {
			cell, err := Of(lib.SASSArchitectures, lib.PTXArchitectures, c)
			if err != nil {
				return Archive{}, nil, fmt.Errorf("%s %s %s: %s: %w", pkg, platform, variant, lib.Path, err)
			}
			l.Coverage[c.Name] = cell
			if cell.Support.rank() < a.Coverage[c.Name].rank() {
				a.Coverage[c.Name] = cell.Support
			}
			if cell.Support == None {
				gaps = append(gaps, Gap{Package: pkg, Platform: platform, Variant: variant, Library: lib.Path, Capability: c.Name,
					SASS: nonNil(lib.SASSArchitectures), PTX: nonNil(lib.PTXArchitectures)})
			}
		}
		a.Libraries = append(a.Libraries, l)
	}
	return a, gaps, nil
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// OfDetail computes the coverage of every archive of a detail.json, by
// package, platform and variant. Archives without a detection result
// (none in a finished aggregate) are left out.
func OfDetail(d features.Detail, caps []Capability) (*Report, error) {
	r := &Report{Capabilities: Names(caps), Archives: []Archive{}, None: []Gap{}}
	for _, da := range manifest.DetailArchives(d) {
		if da.Features == nil {
			continue
		}
		a, gaps, err := OfArchive(da.Archive, da.Features, caps)
		if err != nil {
			return nil, err
		}
		r.Archives = append(r.Archives, a)
		r.None = append(r.None, gaps...)
	}
	return r, nil
}
