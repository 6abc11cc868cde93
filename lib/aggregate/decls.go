package aggregate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixstring"
)

type declKey struct {
	platform string
	variant  manifest.Variant
}

// String is the key as buildRedist.json's fhsReferences name it and its
// outputsByPlatform nests it: "linux-x86_64/None".
func (k declKey) String() string { return k.platform + "/" + k.variant.String() }

// cudaVersion is the CUDA version the key's variant names ("12", "13.1"),
// "" for none.
func (k declKey) cudaVersion() string {
	v, _ := manifest.VariantCudaVersion(k.variant)
	return v
}

// ArchiveFacts are the buildRedist facts of one archive of a manifest
// (of which Declarations reads the package, platform and variant).
type ArchiveFacts struct {
	manifest.Archive
	Facts features.BuildRedistFacts
	// ByCudaMajor holds the facts per CUDA major for an archive without a
	// variant that has lib/<major> directories.
	ByCudaMajor map[string]features.BuildRedistFacts
}

// Declarations computes the declarations of every package of a
// manifest. Windows archives are left out (buildRedist builds Linux
// packages). An archive without a variant but with lib/<major>
// directories counts once per major, as variant "cuda<major>".
func Declarations(archives []ArchiveFacts) map[string]features.BuildRedistDecl {
	facts := map[string]map[declKey]features.BuildRedistFacts{}
	for _, a := range archives {
		if strings.HasPrefix(a.Platform, "windows") {
			continue
		}
		if facts[a.Package] == nil {
			facts[a.Package] = map[declKey]features.BuildRedistFacts{}
		}
		if a.Variant == manifest.NoVariant && len(a.ByCudaMajor) > 0 {
			for major, f := range a.ByCudaMajor {
				facts[a.Package][declKey{a.Platform, manifest.VariantName(major)}] = f
			}
			continue
		}
		facts[a.Package][declKey{a.Platform, a.Variant}] = a.Facts
	}
	decls := map[string]features.BuildRedistDecl{}
	for pkg, byKey := range facts {
		d := features.BuildRedistDecl{Outputs: []string{}, OutputsByPlatform: map[string]map[string][]string{}, FHSReferences: []string{}}
		lists := map[declKey][]string{}
		var keys []declKey
		for k, f := range byKey {
			keys = append(keys, k)
			lists[k] = f.Outputs
			if d.OutputsByPlatform[k.platform] == nil {
				d.OutputsByPlatform[k.platform] = map[string][]string{}
			}
			d.OutputsByPlatform[k.platform][k.variant.String()] = f.Outputs
			d.IncludeRemoveStubsFromRunpathHook = d.IncludeRemoveStubsFromRunpathHook || f.HasStubs
			d.AllowFHSReferences = d.AllowFHSReferences || f.FHSReferences.Count > 0
			for _, p := range f.FHSReferences.Paths {
				d.FHSReferences = append(d.FHSReferences, k.String()+": "+p)
			}
		}
		sortKeys(keys)
		sort.Strings(d.FHSReferences)
		if len(d.FHSReferences) > 5 {
			d.FHSReferences = d.FHSReferences[:5]
		}
		d.NixExpression = outputsExpression(keys, lists)
		if same(keys, lists) {
			d.Outputs = lists[keys[0]]
		}
		decls[pkg] = d
	}
	return decls
}

func sortKeys(keys []declKey) {
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
}

func same(keys []declKey, lists map[declKey][]string) bool {
	for _, k := range keys[1:] {
		if strings.Join(lists[k], " ") != strings.Join(lists[keys[0]], " ") {
			return false
		}
	}
	return true
}

func nixList(items []string) string { return nixstring.List(items) }

// outputsExpression writes the smallest expression this generator knows
// for the lists: the outputs every key needs, plus one lib.optionals per
// distinct condition, the condition on platforms, on CUDA majors, or on
// both, whichever is shortest and exact.
func outputsExpression(keys []declKey, lists map[declKey][]string) string {
	has := func(k declKey, o string) bool {
		for _, x := range lists[k] {
			if x == o {
				return true
			}
		}
		return false
	}
	var common []string
	type group struct {
		cond    string
		outputs []string
	}
	var groups []*group
	for _, o := range features.BuildRedistOutputs {
		var with []declKey
		for _, k := range keys {
			if has(k, o) {
				with = append(with, k)
			}
		}
		switch len(with) {
		case 0:
			continue
		case len(keys):
			common = append(common, o)
			continue
		}
		cond := condition(keys, with)
		var g *group
		for _, x := range groups {
			if x.cond == cond {
				g = x
			}
		}
		if g == nil {
			g = &group{cond: cond}
			groups = append(groups, g)
		}
		g.outputs = append(g.outputs, o)
	}
	expr := nixList(common)
	for _, g := range groups {
		expr += " ++ lib.optionals (" + g.cond + ") " + nixList(g.outputs)
	}
	return expr
}

func condition(all, with []declKey) string {
	in := map[declKey]bool{}
	for _, k := range with {
		in[k] = true
	}
	selects := func(pred func(declKey) bool) bool {
		for _, k := range all {
			if pred(k) != in[k] {
				return false
			}
		}
		return true
	}
	uniq := func(f func(declKey) string) []string {
		seen := map[string]bool{}
		var out []string
		for _, k := range with {
			if v := f(k); !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		sort.Strings(out)
		return out
	}
	oneOf := func(varName string, values []string) string {
		if len(values) == 1 {
			return varName + " == " + nixstring.Quote(values[0])
		}
		return fmt.Sprintf("lib.elem %s %s", varName, nixList(values))
	}
	platforms := uniq(func(k declKey) string { return k.platform })
	versions := uniq(declKey.cudaVersion)
	var candidates []string
	if selects(func(k declKey) bool { return slices.Contains(platforms, k.platform) }) {
		candidates = append(candidates, oneOf("backendStdenv.hostRedistSystem", platforms))
	}
	if !slices.Contains(versions, "") && sameVersionVar(versions) && selects(func(k declKey) bool { return slices.Contains(versions, k.cudaVersion()) }) {
		candidates = append(candidates, oneOf(versionVar(versions[0]), versions))
	}
	var pairs []string
	for _, k := range with {
		c := "backendStdenv.hostRedistSystem == " + nixstring.Quote(k.platform)
		if v := k.cudaVersion(); v != "" {
			c = "(" + c + " && " + versionVar(v) + " == " + nixstring.Quote(v) + ")"
		}
		pairs = append(pairs, c)
	}
	candidates = append(candidates, strings.Join(pairs, " || "))
	best := candidates[0]
	for _, c := range candidates[1:] {
		if len(c) < len(best) {
			best = c
		}
	}
	return best
}

// versionVar is the cudaPackages attribute a variant's version is
// compared with: cudaMajorVersion for "12", cudaMajorMinorVersion for
// cuda_compat's "13.1" (CUDA 13.1.1 to 13.3.1).
func versionVar(v string) string {
	if strings.Contains(v, ".") {
		return "cudaMajorMinorVersion"
	}
	return "cudaMajorVersion"
}

// sameVersionVar: every version compares with the same attribute.
func sameVersionVar(vs []string) bool {
	for _, v := range vs {
		if versionVar(v) != versionVar(vs[0]) {
			return false
		}
	}
	return true
}
