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
	declared, findings := knownOutputs(decl.Outputs)
	entries, _ := buildredist.Prepare(t, opts)
	outputs := buildredist.Install(entries, append([]string{"out"}, declared...), opts.Globstar)
	findings = append(findings, emptyOutputs(declared, outputs)...)
	findings = append(findings, stubsHook(decl, declared, outputs)...)
	if !decl.AllowFHSReferences {
		findings = append(findings, fhsReference(entries)...)
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

// knownOutputs splits the declared outputs into those buildRedist knows
// and a finding for each other one.
func knownOutputs(outputs []string) (declared []string, findings []Finding) {
	for _, o := range outputs {
		if slices.Contains(features.BuildRedistOutputs, o) {
			declared = append(declared, o)
		} else {
			findings = append(findings, Finding{Kind: "unknownOutput", Output: o,
				Message: fmt.Sprintf("output %q is not one buildRedist knows; it is dropped", o)})
		}
	}
	return declared, findings
}

// emptyOutputs: each declared output (but out and dev) the build leaves
// empty fails it.
func emptyOutputs(declared []string, outputs map[string][]buildredist.Entry) []Finding {
	var findings []Finding
	for _, o := range declared {
		if o == "out" || o == "dev" || len(outputs[o]) > 0 {
			continue
		}
		why := "buildRedist moves nothing into it"
		if len(buildredist.Patterns[o]) > 0 {
			why = "nothing matches " + strings.Join(buildredist.Patterns[o], " ")
		}
		findings = append(findings, Finding{Error: true, Kind: "emptyOutput", Output: o,
			Message: fmt.Sprintf("declared output %s ends up empty: %s", o, why)})
	}
	return findings
}

// stubsHook: the stubs hook (on by default with a stubs output) must
// find stubs in its output, and no other output may hold a stubs
// directory.
func stubsHook(decl Declaration, declared []string, outputs map[string][]buildredist.Entry) []Finding {
	hookOn := slices.Contains(declared, "stubs")
	if decl.IncludeRemoveStubsFromRunpathHook != nil {
		hookOn = *decl.IncludeRemoveStubsFromRunpathHook
	}
	hookOutput := "out"
	if slices.Contains(declared, "stubs") {
		hookOutput = "stubs"
	}
	var findings []Finding
	hookOutputHasStubs := false
	for _, o := range features.BuildRedistOutputs {
		dir := firstStubsDir(outputs[o])
		switch {
		case dir == "":
		case o == hookOutput && hookOn:
			hookOutputHasStubs = true
		case hookOn:
			findings = append(findings, Finding{Error: true, Kind: "stubsHook", Output: o, File: dir,
				Message: fmt.Sprintf("output %s has a stubs directory but the stubs hook goes to output %s", o, hookOutput)})
		default:
			findings = append(findings, Finding{Error: true, Kind: "stubsHook", Output: o, File: dir,
				Message: fmt.Sprintf("output %s has a stubs directory but includeRemoveStubsFromRunpathHook is false", o)})
		}
	}
	if hookOn && !hookOutputHasStubs {
		findings = append(findings, Finding{Error: true, Kind: "stubsHook", Output: hookOutput,
			Message: fmt.Sprintf("includeRemoveStubsFromRunpathHook is true but output %s has no stubs directory", hookOutput)})
	}
	return findings
}

// firstStubsDir is the stubs directory of the first of entries in one,
// or "".
func firstStubsDir(entries []buildredist.Entry) string {
	for _, e := range entries {
		if dir := e.StubsDir(); dir != "" {
			return dir
		}
	}
	return ""
}

// fhsReference: a file naming /usr/ fails the build unless the
// declaration allows it (the first such file).
func fhsReference(entries []buildredist.Entry) []Finding {
	for _, e := range entries {
		if e.FHSReference() {
			return []Finding{{Error: true, Kind: "fhsReference", File: e.Path,
				Message: "a file contains /usr/ and allowFHSReferences is not set"}}
		}
	}
	return nil
}
