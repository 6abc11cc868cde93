package facts

// checkCudaFhsRefs' /usr/ scan: which files of the tree name /usr/, done
// on each file's content during the walk (walk.go).

import (
	"bytes"
	"regexp"
	"strings"
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

// indexUsr is where data holds "/usr/" first, or -1. bytes.Index is
// vectorised; the scans of our own it replaced (AVX2 assembly, a search
// for the 'u') saved under 10 % of the detector's time on a real archive
// (docs/performance.md, "Hand-written assembly").
func indexUsr(data []byte) int { return bytes.Index(data, usrBytes) }

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
