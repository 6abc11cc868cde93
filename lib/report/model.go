package report

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/capability"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest/licence"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
)

// Report is the model of one report: the releases read, newest last, and
// the changes of the newest against another one.
type Report struct {
	Redist   string    `json:"redist"`
	Releases []Release `json:"releases"`
	Changes  *Changes  `json:"changes,omitempty"`
	// Capabilities are the Nixpkgs cudaCapabilities entries whose
	// coverage each release shows (AddCoverage); none unless asked.
	Capabilities []string `json:"capabilities,omitempty"`
	// RuntimeLoadsSince says, per package and runtime load, from which
	// version of the package it appears over the releases read (and
	// until which, when it went away): the version condition a package
	// file writes. Absent when no release has a load.
	RuntimeLoadsSince []runtimedeps.Appearance `json:"runtimeLoadsSince,omitempty"`
}

// Release is one manifest's packages.
type Release struct {
	Version   string   `json:"version"`
	Platforms []string `json:"platforms"`
	// Architectures are the columns of the coverage matrix: every SASS or
	// PTX architecture of the release, oldest first.
	Architectures []string  `json:"architectures"`
	Packages      []Package `json:"packages"`
	// BuildRedist is what each package's buildRedist call should declare,
	// computed from the archives as the aggregate's buildRedist.json is
	// (lib/aggregate.Declarations): what print-buildredist prints and
	// check-nixpkgs --fix writes. Archives without buildRedist facts
	// (aggregates made from upstream's index, as the real fixtures) and
	// Windows archives (buildRedist builds Linux packages) are left out.
	BuildRedist map[string]features.BuildRedistDecl `json:"buildRedist"`
	Graph       Graph                               `json:"graph"`
	// Licences group the packages by their manifest's licence string,
	// with the Nixpkgs attribute the licence table maps it to ("" when
	// the table does not know it; docs/licences.md).
	Licences []LicenceGroup `json:"licences"`
	// LicenceTexts group the packages whose archives were detected by
	// the text of their licence file (its sha256), the largest first.
	LicenceTexts []lineage.TextGroup `json:"licenceTexts"`
	// Coverage is what the GPUs of Report.Capabilities get from each
	// archive and library (AddCoverage).
	Coverage *coverage.Report `json:"coverage,omitempty"`
}

// Package is one package of a release.
type Package struct {
	Name string `json:"name"`
	// Version is the package's own version (releaseInfo.version).
	Version string `json:"version"`
	// License is the manifest's licence string (releaseInfo.license).
	License  string    `json:"license"`
	Archives []Archive `json:"archives"`
}

// LicenceGroup is the packages of a release under one licence string.
type LicenceGroup struct {
	License  string   `json:"license"`
	Attr     string   `json:"attr"`
	Packages []string `json:"packages"`
}

// Archive is one platform and variant of a package.
type Archive struct {
	Platform     string           `json:"platform"`
	Variant      manifest.Variant `json:"variant"`
	RelativePath string           `json:"relativePath"`
	SHA256       string           `json:"sha256"`
	NarHash      string           `json:"narHash"`
	// Outputs are the outputs buildRedist needs for this archive (the
	// detection's buildRedist.outputs, in buildRedist's order); empty when
	// the detection has no buildRedist facts.
	Outputs []string `json:"outputs"`
	// OutputsByCudaMajor are buildRedist's outputs per CUDA major for an
	// archive without a variant whose lib/<major> directories serve
	// several (each is its own "cuda<major>" in buildRedist.json).
	OutputsByCudaMajor map[string][]string `json:"outputsByCudaMajor,omitempty"`
	// LegacyOutputs are the outputs of the index and feature_<version>.json
	// (detect's outputs object, upstream's format): not what buildRedist
	// declares (it has no dev output, for one). The report shows them only
	// for archives without buildRedist facts, marked as legacy.
	LegacyOutputs []string `json:"legacyOutputs"`
	// SASS and PTX are unions over the archive's libraries, oldest first.
	SASS []string `json:"sass"`
	PTX  []string `json:"ptx"`
	// TopPTX is the newest generic PTX architecture: what lets GPUs newer
	// than every SASS architecture JIT-compile the code ("" without one;
	// family and specific PTX do not count, docs/compatibility.md).
	TopPTX   string   `json:"topPtx"`
	Provides []string `json:"provides"`
	Needs    []string `json:"needs"`
	// Vendored are the third-party libraries of the archive that a free
	// distribution ships (docs/vendored.md; the default index), in path
	// order; absent when none.
	Vendored []VendoredLib `json:"vendored,omitempty"`
	// RuntimeLoads are what the archive's libraries load at run time,
	// each with its provider as the aggregate resolved it
	// ("libnvrtc.so.13 → cuda_nvrtc", lib/runtimedeps.Label), sorted;
	// absent when none.
	RuntimeLoads []string `json:"runtimeLoads,omitempty"`
	// Loads are the same, as the index keeps them (for RuntimeLoadsSince).
	Loads []features.IndexLoad `json:"-"`
}

// Graph is the soname dependency graph of a release: package A → B when A
// needs a soname B provides. Sonames no package provides (and that are
// not system libraries) become external nodes.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Node is a package, or an external soname.
type Node struct {
	Name     string `json:"name"`
	External bool   `json:"external"`
}

// Edge says From needs Sonames, which To provides.
type Edge struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	Sonames []string `json:"sonames"`
}

// systemLib matches the sonames every Linux program may need and that the
// graph leaves out: libc and friends, the dynamic loader, the C++ runtime
// and the driver's libcuda.so.1.
var systemLib = regexp.MustCompile(`^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so(\.|$)|^ld-linux.*|^libcuda\.so\.1$`)

// IsSystemLib says whether the graph leaves soname out.
func IsSystemLib(soname string) bool { return systemLib.MatchString(soname) }

// Aggregate is one aggregate directory as read.
type Aggregate struct {
	Redist  string
	Version string
	Index   features.Index
	Detail  features.Detail
}

// ReadAggregate reads index.json and detail.json of dir. The index names
// the redist and the version.
func ReadAggregate(dir string) (*Aggregate, error) {
	var a Aggregate
	if err := readJSON(filepath.Join(dir, "index.json"), &a.Index); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(dir, "detail.json"), &a.Detail); err != nil {
		return nil, err
	}
	if len(a.Index) != 1 {
		return nil, fmt.Errorf("%s: index.json holds %d redists, want one (an aggregate directory, not a merged index)", dir, len(a.Index))
	}
	for redist, versions := range a.Index {
		if len(versions) != 1 {
			return nil, fmt.Errorf("%s: index.json holds %d versions of %s, want one", dir, len(versions), redist)
		}
		a.Redist = redist
		for v := range versions {
			a.Version = v
		}
	}
	for pkg, platforms := range a.Detail {
		for platform, variants := range platforms {
			for variant, e := range variants {
				if e.Features == nil {
					return nil, fmt.Errorf("%s: detail.json %s/%s/%s: no features", dir, pkg, platform, variant)
				}
			}
		}
	}
	return &a, nil
}

func readJSON(path string, v any) error {
	data, err := inputfile.Read(path, inputfile.MaxDocument)
	if err != nil {
		return err
	}
	return jsoncheck.Unmarshal(path, data, v)
}

// Build makes the report of aggregates of one redist. The changes compare
// the newest release with against, or with the one before it when against
// is "" (none with a single release).
func Build(aggs []*Aggregate, against string) (*Report, error) {
	if len(aggs) == 0 {
		return nil, fmt.Errorf("no aggregate directories")
	}
	r := &Report{Redist: aggs[0].Redist}
	seen := map[string]bool{}
	for _, a := range aggs {
		if a.Redist != r.Redist {
			return nil, fmt.Errorf("aggregates of two redists: %s and %s (a report covers one)", r.Redist, a.Redist)
		}
		if seen[a.Version] {
			return nil, fmt.Errorf("version %s %s given twice", a.Redist, a.Version)
		}
		seen[a.Version] = true
		r.Releases = append(r.Releases, ReleaseOf(a))
	}
	sort.Slice(r.Releases, func(i, j int) bool {
		return CompareVersions(r.Releases[i].Version, r.Releases[j].Version) < 0
	})
	newest := &r.Releases[len(r.Releases)-1]
	var old *Release
	switch {
	case against != "":
		for i := range r.Releases {
			if r.Releases[i].Version == against {
				old = &r.Releases[i]
			}
		}
		if old == nil {
			return nil, fmt.Errorf("--against %s: not among the versions read (%s)", against, strings.Join(r.Versions(), ", "))
		}
		if old == newest {
			return nil, fmt.Errorf("--against %s: that is the newest release itself", against)
		}
	case len(r.Releases) > 1:
		old = &r.Releases[len(r.Releases)-2]
	}
	if old != nil {
		r.Changes = Diff(old, newest)
		byVersion := map[string]*Aggregate{}
		for _, a := range aggs {
			byVersion[a.Version] = a
		}
		r.Changes.Lineage = LineageOf(byVersion[old.Version], byVersion[newest.Version])
	}
	r.RuntimeLoadsSince = loadsSince(r.Releases)
	return r, nil
}

// Versions lists the releases' versions, oldest first.
func (r *Report) Versions() []string {
	var vs []string
	for _, rel := range r.Releases {
		vs = append(vs, rel.Version)
	}
	return vs
}

// ReleaseOf is the model of one aggregate.
func ReleaseOf(a *Aggregate) Release {
	rel := Release{Version: a.Version, Packages: []Package{}}
	platforms := map[string]bool{}
	archs := map[string]bool{}
	index := a.Index[a.Redist][a.Version]
	vend := vendoredOf(a.Detail)
	for _, name := range sortedKeys(a.Detail) {
		p := Package{Name: name, Version: index[name].ReleaseInfo.Version, License: index[name].ReleaseInfo.License, Archives: []Archive{}}
		for _, platform := range sortedKeys(a.Detail[name]) {
			platforms[platform] = true
			for _, variant := range sortedKeys(a.Detail[name][platform]) {
				arc := buildArchive(platform, variant, a.Detail[name][platform][variant])
				arc.Vendored = vend[manifest.Archive{Package: name, Platform: platform, Variant: arc.Variant}]
				for _, s := range append(append([]string{}, arc.SASS...), arc.PTX...) {
					archs[s] = true
				}
				p.Archives = append(p.Archives, arc)
			}
		}
		rel.Packages = append(rel.Packages, p)
	}
	rel.Platforms = sortedKeys(platforms)
	rel.Architectures = sortArchs(sortedKeys(archs))
	rel.Graph = buildGraph(rel.Packages)
	rel.BuildRedist = declarations(a.Detail)
	rel.Licences = licenceGroups(rel.Packages)
	rel.LicenceTexts = lineage.GroupByText(lineage.FromAggregate(a.Redist, a.Version, a.Index, a.Detail))
	return rel
}

// licenceGroups groups packages by licence string (in string order).
func licenceGroups(pkgs []Package) []LicenceGroup {
	by := map[string][]string{}
	for _, p := range pkgs {
		by[p.License] = append(by[p.License], p.Name)
	}
	out := []LicenceGroup{}
	for _, l := range sortedKeys(by) {
		e, _ := licence.Lookup(l)
		out = append(out, LicenceGroup{License: l, Attr: e.Attr, Packages: by[l]})
	}
	return out
}

// loadsSince is runtimedeps.Since over the packages of the releases.
func loadsSince(releases []Release) []runtimedeps.Appearance {
	var rs []runtimedeps.PackageRelease
	for _, rel := range releases {
		for _, p := range rel.Packages {
			pr := runtimedeps.PackageRelease{Package: p.Name, Version: p.Version}
			for _, a := range p.Archives {
				pr.Loads = append(pr.Loads, a.Loads...)
			}
			rs = append(rs, pr)
		}
	}
	return runtimedeps.Since(rs)
}

// declarations are the buildRedist declarations of the archives with
// buildRedist facts, computed as the aggregate builder computes
// buildRedist.json.
func declarations(d features.Detail) map[string]features.BuildRedistDecl {
	var archives []aggregate.ArchiveFacts
	for _, a := range manifest.DetailArchives(d) {
		f := a.Features
		if f.BuildRedist.Outputs == nil {
			continue
		}
		archives = append(archives, aggregate.ArchiveFacts{Archive: a.Archive, Facts: f.BuildRedist, ByCudaMajor: f.BuildRedistByCudaMajor})
	}
	decls := aggregate.Declarations(archives)
	var resolved []runtimedeps.Resolved
	for _, a := range manifest.DetailArchives(d) {
		if a.Features.BuildRedist.Outputs != nil {
			resolved = append(resolved, runtimedeps.Resolved{Archive: a.Archive, Loads: d[a.Package][a.Platform][a.Variant.String()].RuntimeLoads})
		}
	}
	for pkg, loads := range runtimedeps.PackageLoads(resolved) {
		if decl, ok := decls[pkg]; ok {
			decl.RuntimeDependencies = loads
			decls[pkg] = decl
		}
	}
	return decls
}

func buildArchive(platform, variant string, e features.DetailEntry) Archive {
	f := e.Features
	arc := Archive{
		Platform: platform, Variant: manifest.ParseVariantKey(variant),
		RelativePath: e.RelativePath, SHA256: e.SHA256, NarHash: f.NarHash,
		Outputs:       append([]string{}, f.BuildRedist.Outputs...),
		LegacyOutputs: features.TrueOutputs(f.Outputs),
	}
	if len(f.BuildRedistByCudaMajor) > 0 {
		arc.OutputsByCudaMajor = map[string][]string{}
		for major, facts := range f.BuildRedistByCudaMajor {
			arc.OutputsByCudaMajor[major] = append([]string{}, facts.Outputs...)
		}
	}
	sass, ptx, provides, needs := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, lib := range f.Libraries {
		for _, s := range lib.SASSArchitectures {
			sass[s] = true
		}
		for _, s := range lib.PTXArchitectures {
			ptx[s] = true
		}
		if lib.Kind == "shared" && lib.Soname != "" {
			provides[lib.Soname] = true
		}
		for _, n := range lib.Needed {
			needs[n] = true
		}
	}
	for _, s := range groupedAll(f.ProvidedLibs) {
		provides[s] = true
	}
	for _, s := range groupedAll(f.NeededLibs) {
		needs[s] = true
	}
	arc.SASS = sortArchs(sortedKeys(sass))
	arc.PTX = sortArchs(sortedKeys(ptx))
	arc.TopPTX = topPTX(arc.PTX)
	arc.Provides = sortedKeys(provides)
	arc.Needs = sortedKeys(needs)
	arc.Loads = runtimedeps.IndexLoads(e.RuntimeLoads)
	for _, l := range arc.Loads {
		arc.RuntimeLoads = append(arc.RuntimeLoads, runtimedeps.Label(l))
	}
	sort.Strings(arc.RuntimeLoads)
	return arc
}

func groupedAll(g features.Grouped) []string {
	out := append([]string{}, g.List...)
	for _, l := range g.Groups {
		out = append(out, l...)
	}
	return out
}

// providers maps each soname to the packages whose archives provide it.
func providers(pkgs []Package) map[string][]string {
	provider := map[string][]string{}
	for _, p := range pkgs {
		seen := map[string]bool{}
		for _, a := range p.Archives {
			for _, s := range a.Provides {
				if !seen[s] {
					seen[s] = true
					provider[s] = append(provider[s], p.Name)
				}
			}
		}
	}
	return provider
}

func buildGraph(pkgs []Package) Graph {
	provider := providers(pkgs)
	edges := map[[2]string]map[string]bool{}
	external := map[string]bool{}
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	// addNeed adds the edges of p's need s: to each package providing s
	// (never p itself), or to s as an external node when none does.
	addNeed := func(p, s string) {
		to := provider[s]
		if len(to) == 0 {
			external[s] = true
			to = []string{s}
		}
		for _, t := range to {
			if t == p {
				continue
			}
			k := [2]string{p, t}
			if edges[k] == nil {
				edges[k] = map[string]bool{}
			}
			edges[k][s] = true
		}
	}
	for _, p := range pkgs {
		g.Nodes = append(g.Nodes, Node{Name: p.Name})
		for _, a := range p.Archives {
			for _, s := range a.Needs {
				if !IsSystemLib(s) {
					addNeed(p.Name, s)
				}
			}
		}
	}
	for _, s := range sortedKeys(external) {
		g.Nodes = append(g.Nodes, Node{Name: s, External: true})
	}
	var keys [][2]string
	for k := range edges {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		g.Edges = append(g.Edges, Edge{From: k[0], To: k[1], Sonames: sortedKeys(edges[k])})
	}
	return g
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortArchs sorts architecture names in place, oldest first and, for one
// SM, generic before family (f) before specific (a): capability.Less.
func sortArchs(archs []string) []string { return capability.Sort(archs) }

// topPTX is the newest generic PTX target: the one GPUs newer than every
// SASS target can JIT-compile. Family and specific PTX (sm_120f, sm_90a)
// serve only their own family or GPU, so they never are.
func topPTX(ptx []string) string {
	for i := len(ptx) - 1; i >= 0; i-- {
		if t, err := capability.ParseTarget(ptx[i]); err == nil && t.Kind == capability.Generic {
			return ptx[i]
		}
	}
	return ""
}

// CompareVersions orders dotted versions numerically part by part
// ("9.10.0" after "9.8.0"); non-numeric parts compare as strings.
func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		if i >= len(pa) {
			return -1
		}
		if i >= len(pb) {
			return 1
		}
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil && na != nb:
			if na < nb {
				return -1
			}
			return 1
		case (ea != nil || eb != nil) && pa[i] != pb[i]:
			return strings.Compare(pa[i], pb[i])
		}
	}
	return 0
}
