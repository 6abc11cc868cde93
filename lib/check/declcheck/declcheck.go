package declcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Declaration is what a Nixpkgs package file passes to buildRedist.
type Declaration struct {
	Outputs []string `json:"outputs"`
	// IncludeRemoveStubsFromRunpathHook is nil when not set: it then
	// defaults to whether "stubs" is declared.
	IncludeRemoveStubsFromRunpathHook *bool `json:"includeRemoveStubsFromRunpathHook"`
	AllowFHSReferences                bool  `json:"allowFHSReferences"`
}

// Finding is one way a declaration and an archive disagree. Errors fail
// the Nixpkgs build; hints are outputs that could be split off.
type Finding struct {
	Error   bool   `json:"error"`
	Kind    string `json:"kind"` // emptyOutput, stubsHook, fhsReference, unknownOutput, couldSplit
	Output  string `json:"output,omitempty"`
	File    string `json:"file,omitempty"` // the file that makes the difference
	Message string `json:"message"`
}

// Check simulates the build of the tree with the declaration and returns
// what would fail it (errors) and what could be declared more (hints).
func Check(t features.Tree, decl Declaration, opts buildredist.Options) []Finding {
	var findings []Finding
	var declared []string
	for _, o := range decl.Outputs {
		if slices.Contains(features.BuildRedistOutputs, o) {
			declared = append(declared, o)
		} else {
			findings = append(findings, Finding{Kind: "unknownOutput", Output: o,
				Message: fmt.Sprintf("output %q is not one buildRedist knows; it is dropped", o)})
		}
	}
	entries, _ := buildredist.Prepare(t, opts)
	outputs := buildredist.Install(entries, append([]string{"out"}, declared...), opts.Globstar)

	for _, o := range declared {
		if o == "out" || o == "dev" {
			continue
		}
		if len(outputs[o]) == 0 {
			why := "buildRedist moves nothing into it"
			if len(buildredist.Patterns[o]) > 0 {
				why = "nothing matches " + strings.Join(buildredist.Patterns[o], " ")
			}
			findings = append(findings, Finding{Error: true, Kind: "emptyOutput", Output: o,
				Message: fmt.Sprintf("declared output %s ends up empty: %s", o, why)})
		}
	}

	hookOn := slices.Contains(declared, "stubs")
	if decl.IncludeRemoveStubsFromRunpathHook != nil {
		hookOn = *decl.IncludeRemoveStubsFromRunpathHook
	}
	hookOutput := "out"
	if slices.Contains(declared, "stubs") {
		hookOutput = "stubs"
	}
	hookOutputHasStubs := false
	for _, o := range features.BuildRedistOutputs {
		for _, e := range outputs[o] {
			dir := e.StubsDir()
			if dir == "" {
				continue
			}
			if o == hookOutput && hookOn {
				hookOutputHasStubs = true
				continue
			}
			msg := fmt.Sprintf("output %s has a stubs directory but includeRemoveStubsFromRunpathHook is false", o)
			if hookOn {
				msg = fmt.Sprintf("output %s has a stubs directory but the stubs hook goes to output %s", o, hookOutput)
			}
			findings = append(findings, Finding{Error: true, Kind: "stubsHook", Output: o, File: dir, Message: msg})
			break
		}
	}
	if hookOn && !hookOutputHasStubs {
		findings = append(findings, Finding{Error: true, Kind: "stubsHook", Output: hookOutput,
			Message: fmt.Sprintf("includeRemoveStubsFromRunpathHook is true but output %s has no stubs directory", hookOutput)})
	}

	if !decl.AllowFHSReferences {
		for _, e := range entries {
			if e.FHSReference() {
				findings = append(findings, Finding{Error: true, Kind: "fhsReference", File: e.Path,
					Message: "a file contains /usr/ and allowFHSReferences is not set"})
				break
			}
		}
	}

	all := buildredist.Install(entries, features.BuildRedistOutputs, opts.Globstar)
	for _, o := range features.BuildRedistOutputs[1:] {
		if !slices.Contains(declared, o) && len(all[o]) > 0 {
			findings = append(findings, Finding{Kind: "couldSplit", Output: o, File: all[o][0].Path,
				Message: fmt.Sprintf("output %s could be declared", o)})
		}
	}
	return findings
}
