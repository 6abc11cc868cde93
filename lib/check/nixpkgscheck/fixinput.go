package nixpkgscheck

import (
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

// FixCase is one case a package file evaluated for, with the detected
// archives of its pname there: what check-nixpkgs --fix repairs the file
// against.
type FixCase struct {
	Case        int // index into Plan.Cases
	Name        string
	Platform    string // hostRedistSystem
	CudaVersion string
	Result      pkgeval.Result
	Archives    []Archive
}

// Unpackaged is a package of the manifests that no package file has,
// with its detected archives and the CUDA version of each.
type Unpackaged struct {
	Redist, Package string
	Archives        []Archive
	CudaVersions    []string
}

// FixInput groups the check's archives by the package file of their
// pname (files that do not evaluate for a case get nothing for it), and
// lists the packages no file has, sorted.
func (p *Plan) FixInput(files []string, results map[string][]pkgeval.Result) (map[string][]FixCase, []Unpackaged) {
	byPname, _ := resolvePnames(files, results, p.CaseNames)
	byFile := map[string][]FixCase{}
	for _, file := range files {
		for i := range p.Cases {
			if r := results[file][i]; r.OK() && byPname[i][r.Pname] == file {
				byFile[file] = append(byFile[file], FixCase{Case: i, Name: p.CaseNames[i], Platform: p.Cases[i].Platform, CudaVersion: p.Cases[i].CudaVersion, Result: r})
			}
		}
	}
	index := map[[2]string]int{}
	var missing []Unpackaged
	for _, tg := range p.targets {
		if tg.Features == nil {
			continue
		}
		if file, ok := byPname[tg.caseIndex][tg.Package]; ok {
			cs := byFile[file]
			for j := range cs {
				if cs[j].Case == tg.caseIndex {
					cs[j].Archives = append(cs[j].Archives, tg.Archive)
				}
			}
			continue
		}
		if p.ownedElsewhere(tg, byPname) {
			continue
		}
		k := [2]string{tg.Redist, tg.Package}
		i, ok := index[k]
		if !ok {
			i = len(missing)
			index[k] = i
			missing = append(missing, Unpackaged{Redist: tg.Redist, Package: tg.Package})
		}
		missing[i].Archives = append(missing[i].Archives, tg.Archive)
		missing[i].CudaVersions = append(missing[i].CudaVersions, tg.cudaVersion)
	}
	sort.Slice(missing, func(a, b int) bool { return missing[a].Package < missing[b].Package })
	return byFile, missing
}

// ownedElsewhere: some file has the target's pname in another case (a
// file whose pname is conditional), so the package is not unpackaged.
func (p *Plan) ownedElsewhere(tg target, byPname []map[string]string) bool {
	for _, m := range byPname {
		if _, ok := m[tg.Package]; ok {
			return true
		}
	}
	return false
}
