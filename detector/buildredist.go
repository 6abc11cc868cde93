package detector

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
)

type usrReference int

const (
	usrNone usrReference = iota
	usrAnywhere
	// usrPkgConfigVarsOnly: a .pc file whose every /usr/ is on a line
	// that patchCudaPkgConfig rewrites.
	usrPkgConfigVarsOnly
)

var usrBytes = []byte("/usr/")

// The lines patchCudaPkgConfig rewrites (sed -e "s|^cudaroot\s*=.*$|…|"…).
var pkgConfigRewritten = []*regexp.Regexp{
	regexp.MustCompile(`^cudaroot\s*=.*$`),
	regexp.MustCompile(`^libdir\s*=.*/lib$`),
	regexp.MustCompile(`^includedir\s*=.*/include$`),
}

// findUsr is checkCudaFhsRefs' grep for "/usr/", done while the file's
// content is at hand during the walk.
func findUsr(rel string, data []byte) usrReference {
	if !bytes.Contains(data, usrBytes) {
		return usrNone
	}
	if !strings.HasSuffix(rel, ".pc") {
		return usrAnywhere
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, usrBytes) {
			continue
		}
		rewritten := false
		for _, re := range pkgConfigRewritten {
			if re.Match(line) {
				rewritten = true
				break
			}
		}
		if !rewritten {
			return usrAnywhere
		}
	}
	return usrPkgConfigVarsOnly
}

// buildRedistTree lists the tree as buildredist.Tree.
func (t *tree) buildRedistTree() buildredist.Tree {
	bt := buildredist.Tree{Files: []string{}, Symlinks: []string{}, EmptyDirs: []string{}, UsrFiles: []string{}, UsrOnlyInPkgConfigVars: []string{}}
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
