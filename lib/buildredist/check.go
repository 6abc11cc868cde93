package buildredist

import (
	"fmt"
	"strings"
)

// maxExamples bounds the paths a result lists (checkCudaFhsRefs itself
// shows the first five matches).
const maxExamples = 5

// FHS counts the files that fail the /usr/ check.
type FHS struct {
	Count int      `json:"count"`
	Paths []string `json:"paths"`
}

// Facts are what one archive needs from its buildRedist call.
type Facts struct {
	// Outputs are the outputs that are non-empty when every expected
	// output is declared: the list to declare, in ExpectedOutputs order,
	// "out" always first.
	Outputs []string `json:"outputs"`
	// HasStubs: some output holds a directory named stubs, so
	// includeRemoveStubsFromRunpathHook must be true.
	HasStubs  bool     `json:"hasStubs"`
	StubsDirs []string `json:"stubsDirs"`
	// FHSReferences are files other than LICENSE containing /usr/: when
	// there are any, allowFHSReferences must be true.
	FHSReferences FHS `json:"fhsReferences"`
	// CudaMajorDir: lib/<cudaMajorVersion>/ exists and replaced lib/.
	CudaMajorDir bool `json:"cudaMajorDir"`
	// Globstar records the reading of "**" the simulation used.
	Globstar bool `json:"globstar"`
}

// Analyze computes the Facts of a tree.
func Analyze(t Tree, opts Options) Facts {
	entries, usedMajor := prepare(t, opts)
	outputs := install(entries, ExpectedOutputs, opts.Globstar)
	f := Facts{Outputs: []string{"out"}, StubsDirs: []string{}, FHSReferences: FHS{Paths: []string{}}, CudaMajorDir: usedMajor, Globstar: opts.Globstar}
	for _, o := range ExpectedOutputs[1:] {
		if len(outputs[o]) > 0 {
			f.Outputs = append(f.Outputs, o)
		}
	}
	for _, o := range ExpectedOutputs {
		for _, e := range outputs[o] {
			if dir := stubsDir(e); dir != "" {
				f.HasStubs = true
				if len(f.StubsDirs) < maxExamples && !contains(f.StubsDirs, dir) {
					f.StubsDirs = append(f.StubsDirs, dir)
				}
			}
		}
	}
	for _, e := range entries {
		if e.fhsReference() {
			f.FHSReferences.Count++
			if len(f.FHSReferences.Paths) < maxExamples {
				f.FHSReferences.Paths = append(f.FHSReferences.Paths, e.path)
			}
		}
	}
	return f
}

// stubsDir returns the path of the first directory named stubs on the
// entry's path ("" when none): what `find -type d -name stubs` reports.
func stubsDir(e entry) string {
	parts := strings.Split(e.path, "/")
	last := len(parts) - 1 // a file's own name is not a directory
	if e.kind == kindEmptyDir {
		last = len(parts)
	}
	for i := 0; i < last; i++ {
		if parts[i] == "stubs" {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

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
func Check(t Tree, decl Declaration, opts Options) []Finding {
	var findings []Finding
	var declared []string
	for _, o := range decl.Outputs {
		if contains(ExpectedOutputs, o) {
			declared = append(declared, o)
		} else {
			findings = append(findings, Finding{Kind: "unknownOutput", Output: o,
				Message: fmt.Sprintf("output %q is not one buildRedist knows; it is dropped", o)})
		}
	}
	entries, _ := prepare(t, opts)
	outputs := install(entries, append([]string{"out"}, declared...), opts.Globstar)

	for _, o := range declared {
		if o == "out" || o == "dev" {
			continue
		}
		if len(outputs[o]) == 0 {
			why := "buildRedist moves nothing into it"
			if len(Patterns[o]) > 0 {
				why = "nothing matches " + strings.Join(Patterns[o], " ")
			}
			findings = append(findings, Finding{Error: true, Kind: "emptyOutput", Output: o,
				Message: fmt.Sprintf("declared output %s ends up empty: %s", o, why)})
		}
	}

	hookOn := contains(declared, "stubs")
	if decl.IncludeRemoveStubsFromRunpathHook != nil {
		hookOn = *decl.IncludeRemoveStubsFromRunpathHook
	}
	hookOutput := "out"
	if contains(declared, "stubs") {
		hookOutput = "stubs"
	}
	hookOutputHasStubs := false
	for _, o := range ExpectedOutputs {
		for _, e := range outputs[o] {
			dir := stubsDir(e)
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
			if e.fhsReference() {
				findings = append(findings, Finding{Error: true, Kind: "fhsReference", File: e.path,
					Message: "a file contains /usr/ and allowFHSReferences is not set"})
				break
			}
		}
	}

	all := install(entries, ExpectedOutputs, opts.Globstar)
	for _, o := range ExpectedOutputs[1:] {
		if !contains(declared, o) && len(all[o]) > 0 {
			findings = append(findings, Finding{Kind: "couldSplit", Output: o, File: all[o][0].path,
				Message: fmt.Sprintf("output %s could be declared", o)})
		}
	}
	return findings
}
