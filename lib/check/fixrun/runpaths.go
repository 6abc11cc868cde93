package fixrun

import (
	"slices"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// KindRunpathsNotAdded is a file --fix could not add the directories of
// its run-time loads to (it has an appendRunpaths already, say): a
// warning, and the file's other fixes are still made.
const KindRunpathsNotAdded = "runpathsNotAdded"

// runpathsByFile gathers the unreachableRuntimeLoad hints per package
// file: one directory per provider, the sonames of every archive.
func runpathsByFile(findings []nixpkgscheck.Finding) map[string][]nixfix.Runpath {
	out := map[string][]nixfix.Runpath{}
	for _, f := range findings {
		rl := f.RuntimeLoad
		if f.Kind != nixpkgscheck.KindUnreachableLoad || rl == nil || f.File == "" {
			continue
		}
		list := out[f.File]
		i := slices.IndexFunc(list, func(r nixfix.Runpath) bool { return r.Provider == rl.Provider })
		if i < 0 {
			list = append(list, nixfix.Runpath{Provider: rl.Provider, Since: rl.Since, Until: rl.Until})
			i = len(list) - 1
		}
		for _, s := range rl.Sonames {
			if !slices.Contains(list[i].Sonames, s) {
				list[i].Sonames = append(list[i].Sonames, s)
			}
		}
		out[f.File] = list
	}
	return out
}

// addRunpaths adds to a file's (fixed) text the appendRunpaths its
// run-time loads need. A refusal is a warning and leaves the text as it
// was: the addition is a proposal, and must not cost the file its other
// fixes.
func (fr *Fix) addRunpaths(file, text string) string {
	adds := fr.runpaths[file]
	if len(adds) == 0 {
		return text
	}
	out, err := nixfix.ProposeRunpaths(text, adds)
	return fr.proposal(file, text, out, err, KindRunpathsNotAdded, "run-time loads not made reachable")
}
