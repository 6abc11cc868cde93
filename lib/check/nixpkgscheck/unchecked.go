package nixpkgscheck

import (
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

// uncheckedFindings make sure nothing passes unchecked: a manifest
// directory whose redist no package file names is an error (its
// archives would otherwise only be noPackageFile hints).
func (p *Plan) uncheckedFindings(files []string, results map[string][]pkgeval.Result) []Finding {
	named := map[string]bool{}
	broken := false
	for _, file := range files {
		for _, r := range results[file] {
			named[r.RedistName] = named[r.RedistName] || r.RedistName != ""
			broken = broken || r.Error != ""
		}
	}
	var out []Finding
	seen := map[string]bool{}
	for _, m := range p.in.Manifests {
		if named[m.Redist] || seen[m.Redist] {
			continue
		}
		seen[m.Redist] = true
		msg := fmt.Sprintf("no package file in %s has redistName %q, so none of these manifests is checked (name the directory's redist with --redist NAME=DIR)", p.in.PackagesDir, m.Redist)
		if broken {
			msg += "; unless it is one of the files that do not evaluate"
		}
		out = append(out, Finding{Level: LevelError, Kind: "noPackageFiles", File: m.Dir, Message: msg})
	}
	return out
}
