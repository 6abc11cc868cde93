package facts

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
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

// indexUsrScalar is bytes.Index(data, usrBytes), faster on binaries: the
// standard search restarts at every '/', the commonest byte of the needle
// in machine code and GPU code (about one byte in 290 of libcufft); it
// looks for the 'u' (one in 500) and checks the bytes around it. indexUsr
// (indexusr_*.go) is this or a vector search that ends with it.
func indexUsrScalar(data []byte) int {
	for i := 1; i+4 <= len(data); {
		j := bytes.IndexByte(data[i:len(data)-3], 'u')
		if j < 0 {
			return -1
		}
		i += j
		if data[i-1] == '/' && data[i+1] == 's' && data[i+2] == 'r' && data[i+3] == '/' {
			return i - 1
		}
		i++
	}
	return -1
}

// The lines patchCudaPkgConfig rewrites (sed -e "s|^cudaroot\s*=.*$|…|"…).
var pkgConfigRewritten = []*regexp.Regexp{
	regexp.MustCompile(`^cudaroot\s*=.*$`),
	regexp.MustCompile(`^libdir\s*=.*/lib$`),
	regexp.MustCompile(`^includedir\s*=.*/include$`),
}

// findUsr is checkCudaFhsRefs' grep for "/usr/", done while the file's
// content is at hand during the walk. It looks at the lines holding
// "/usr/" only, one at a time, so a file of a hundred million empty lines
// costs no memory. scanned is how many bytes of data it looked at: each
// at most twice (once by the search, once as part of a line holding
// "/usr/"), which the tests hold it to.
func findUsr(rel string, data []byte) (_ usrReference, scanned int) {
	i := indexUsr(data)
	if i < 0 {
		return usrNone, len(data)
	}
	scanned = min(i+len(usrBytes), len(data))
	if !strings.HasSuffix(rel, ".pc") {
		return usrAnywhere, scanned
	}
	for i >= 0 {
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := len(data)
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			end = i + j
		}
		scanned += end - start
		if !pkgConfigRewrittenLine(data[start:end]) {
			return usrAnywhere, scanned
		}
		if end == len(data) {
			break
		}
		next := indexUsr(data[end+1:])
		if next < 0 {
			scanned += len(data) - end - 1
			break
		}
		scanned += min(next+len(usrBytes), len(data)-end-1)
		i = end + 1 + next
	}
	return usrPkgConfigVarsOnly, scanned
}

func pkgConfigRewrittenLine(line []byte) bool {
	for _, re := range pkgConfigRewritten {
		if re.Match(line) {
			return true
		}
	}
	return false
}

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
