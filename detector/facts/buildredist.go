package facts

import (
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// buildRedistTree lists the tree as features.Tree.
func (t *tree) buildRedistTree() features.Tree {
	bt := features.Tree{Files: []string{}, Symlinks: []string{}, EmptyDirs: []string{}, UsrFiles: []string{}, UsrOnlyInPkgConfigVars: []string{}}
	for rel, n := range t.nodes {
		if rel == "" {
			continue
		}
		switch n.kind {
		case kindFile:
			bt.Files = append(bt.Files, rel)
			if n.usr != usrNone {
				bt.UsrFiles = append(bt.UsrFiles, rel)
			}
			if n.usr == usrPkgConfigVarsOnly {
				bt.UsrOnlyInPkgConfigVars = append(bt.UsrOnlyInPkgConfigVars, rel)
			}
		case kindSymlink:
			bt.Symlinks = append(bt.Symlinks, rel)
		case kindDir:
			if len(n.children) == 0 {
				bt.EmptyDirs = append(bt.EmptyDirs, rel)
			}
		}
	}
	for _, l := range [][]string{bt.Files, bt.Symlinks, bt.EmptyDirs, bt.UsrFiles, bt.UsrOnlyInPkgConfigVars} {
		sort.Strings(l)
	}
	return bt
}
