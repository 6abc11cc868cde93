package nixpkgscheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

func TestFixInput(t *testing.T) {
	f := detected(headersAndLib, nil, nil)
	in := Input{
		Manifests: []Manifest{{Redist: "sample", Version: "1.0", Releases: releases("a", "1.0.1", "b", "1.0.2", "c", "1.0.3")}},
		Archives: []Archive{x86("a", f), on("a", "linux-sbsa", f), x86("b", f), x86("c", nil), on("z", "linux-sbsa", f),
			on("z", "windows-x86_64", f)},
	}
	p := NewPlan(in)
	// Case 0: x86_64, case 1: sbsa. b.nix does not evaluate on x86_64.
	results := map[string][]pkgeval.Result{
		"a.nix": {evaluated("a", "out", "lib"), evaluated("a", "out")},
		"b.nix": {failed("boom"), evaluated("b", "out")},
	}
	byFile, missing := p.FixInput([]string{"a.nix", "b.nix"}, results)
	type got struct {
		Cases    map[string][]string // file: "case platform: archives"
		Missing  []string
		Versions [][]string
	}
	g := got{Cases: map[string][]string{}}
	for file, cs := range byFile {
		for _, c := range cs {
			s := c.Platform + " " + c.CudaVersion + ":"
			for _, a := range c.Archives {
				s += " " + a.Package + "/" + a.Platform
			}
			g.Cases[file] = append(g.Cases[file], s)
		}
	}
	for _, u := range missing {
		g.Missing = append(g.Missing, u.Redist+"/"+u.Package)
		g.Versions = append(g.Versions, u.CudaVersions)
	}
	want := got{
		Cases: map[string][]string{
			"a.nix": {"linux-x86_64 12.8: a/linux-x86_64", "linux-sbsa 12.8: a/linux-sbsa"},
			"b.nix": {"linux-sbsa 12.8:"},
		},
		// b on x86_64 has a file (that does not evaluate there: not
		// missing); c has no detection; z's Windows archive is no case.
		Missing:  []string{"sample/z"},
		Versions: [][]string{{"12.8"}},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("FixInput (-want +got):\n%s", diff)
	}
}
