package declcheck

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func TestCheck(t *testing.T) {
	yes, no := true, false
	rt := features.Tree{Files: []string{"LICENSE", "include/x.h", "lib/libx.so", "lib/libx_static.a", "lib/stubs/libcuda.so"}}
	tests := []struct {
		name string
		tree features.Tree
		decl Declaration
		want []string // "E kind output file" for errors, "H kind output" for hints
	}{
		{
			"all needed, defaults", rt, Declaration{Outputs: []string{"out", "include", "lib", "static", "stubs"}},
			nil,
		},
		{
			"only out, hook set by hand (cuda_cudart style)", rt,
			Declaration{Outputs: []string{"out"}, IncludeRemoveStubsFromRunpathHook: &yes},
			[]string{"H couldSplit include", "H couldSplit lib", "H couldSplit static", "H couldSplit stubs"},
		},
		{
			"only out without the hook", rt, Declaration{Outputs: []string{"out"}},
			[]string{"E stubsHook out lib/stubs", "H couldSplit include", "H couldSplit lib", "H couldSplit static", "H couldSplit stubs"},
		},
		{
			"stubs not declared: lib holds them", rt, Declaration{Outputs: []string{"out", "include", "lib", "static"}, IncludeRemoveStubsFromRunpathHook: &yes},
			[]string{"E stubsHook lib lib/stubs", "E stubsHook out", "H couldSplit stubs"},
		},
		{
			"declared bin is empty", rt, Declaration{Outputs: []string{"out", "bin", "include", "lib", "static", "stubs"}},
			[]string{"E emptyOutput bin"},
		},
		{
			"dev may be empty", rt, Declaration{Outputs: []string{"out", "dev", "include", "lib", "static", "stubs"}},
			nil,
		},
		{
			"hook on without stubs", features.Tree{Files: []string{"lib/libx.so"}}, Declaration{Outputs: []string{"out", "lib"}, IncludeRemoveStubsFromRunpathHook: &yes},
			[]string{"E stubsHook out"},
		},
		{
			"hook off with stubs declared", rt, Declaration{Outputs: []string{"out", "include", "lib", "static", "stubs"}, IncludeRemoveStubsFromRunpathHook: &no},
			[]string{"E stubsHook stubs lib/stubs"},
		},
		{
			"FHS reference", features.Tree{Files: []string{"bin/x"}, UsrFiles: []string{"bin/x"}}, Declaration{Outputs: []string{"out", "bin"}},
			[]string{"E fhsReference  bin/x"},
		},
		{
			"FHS allowed", features.Tree{Files: []string{"bin/x"}, UsrFiles: []string{"bin/x"}}, Declaration{Outputs: []string{"out", "bin"}, AllowFHSReferences: true},
			nil,
		},
		{
			"unknown output", features.Tree{Files: []string{"bin/x"}}, Declaration{Outputs: []string{"out", "bin", "man"}},
			[]string{"H unknownOutput man"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Check(tc.tree, tc.decl, buildredist.Options{}) {
				s := "H " + f.Kind + " " + f.Output
				if f.Error {
					s = "E " + f.Kind + " " + f.Output
					if f.File != "" {
						s += " " + f.File
					}
				}
				got = append(got, strings.TrimRight(s, " "))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
