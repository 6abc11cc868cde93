package main

import (
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// capabilityFlags are check-nixpkgs' capability coverage flags.
type capabilityFlags struct {
	capabilities *string
	require      *bool
}

func addCapabilityFlags(fs *flag.FlagSet) *capabilityFlags {
	return &capabilityFlags{
		capabilities: fs.String("cuda-capabilities", "", capabilitiesFlagUsage+
			": report each library that nothing of (no SASS, no PTX) runs on one of them, as a hint (see coverage)"),
		require: fs.Bool("require-capabilities", false, "make those findings errors (exit 1): every library with device code must run on every --cuda-capabilities GPU"),
	}
}

// capabilityCheck is what check-nixpkgs checks the coverage of.
type capabilityCheck struct {
	capabilities []coverage.Capability
	required     bool
}

// parse reads the flags; an eval-only check detects nothing, so it has
// no libraries to say anything about.
func (f *capabilityFlags) parse(evalOnly bool, e *env) (capabilityCheck, error) {
	switch {
	case *f.capabilities == "" && *f.require:
		return capabilityCheck{}, usageErrorf("--require-capabilities needs --cuda-capabilities")
	case *f.capabilities == "":
		return capabilityCheck{}, nil
	case evalOnly:
		e.log.Warn("--eval-only detects no archive: --cuda-capabilities is not checked")
	}
	caps, err := parseCapabilities(*f.capabilities)
	return capabilityCheck{capabilities: caps, required: *f.require}, err
}

// add appends the coverage findings to the check's and puts them all in
// the report's order.
func (c capabilityCheck) add(findings []nixpkgscheck.Finding, archives []nixpkgscheck.Archive) ([]nixpkgscheck.Finding, error) {
	more, err := nixpkgscheck.CoverageFindings(archives, c.capabilities, c.required)
	if err != nil || len(more) == 0 {
		return findings, err
	}
	findings = append(findings, more...)
	nixpkgscheck.Sort(findings)
	return findings, nil
}
