package nixpkgscheck

import (
	"fmt"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
)

// KindCapabilityNotCovered is the finding for a library that nothing of
// (no SASS, no PTX) runs on the GPU of a requested cudaCapabilities entry.
const KindCapabilityNotCovered = "capabilityNotCovered"

// CoverageFindings are, for each detected archive and each library with
// device code, the capabilities it gets nothing for: one finding per
// library, a hint, or an error when required (--require-capabilities: a
// user with such a GPU cannot run that library). Archives without a
// detection are reported apart (failures).
func CoverageFindings(archives []Archive, caps []coverage.Capability, required bool) ([]Finding, error) {
	if len(caps) == 0 {
		return nil, nil
	}
	var out []Finding
	for _, a := range archives {
		if a.Features == nil {
			continue
		}
		_, gaps, err := coverage.OfArchive(a.Archive, a.Features, caps)
		if err != nil {
			return nil, fmt.Errorf("capability coverage of %s %s: %w", a.Redist, a.Manifest, err)
		}
		out = append(out, gapFindings(a, gaps, required)...)
	}
	return out, nil
}

// gapFindings groups an archive's gaps by library (OfArchive lists them
// library by library).
func gapFindings(a Archive, gaps []coverage.Gap, required bool) []Finding {
	var out []Finding
	for i := 0; i < len(gaps); {
		j := i
		var names []string
		for ; j < len(gaps) && gaps[j].Library == gaps[i].Library; j++ {
			names = append(names, gaps[j].Capability)
		}
		g := gaps[i]
		out = append(out, Finding{Level: level(required), Kind: KindCapabilityNotCovered,
			Package: a.Package, Platform: a.Platform, Variant: a.Variant.String(), Version: a.Manifest, Path: g.Library,
			Message: fmt.Sprintf("no SASS runs on and no PTX JIT-compiles for cudaCapabilities %s (the library has SASS %s; PTX %s)",
				strings.Join(names, ", "), listOrNone(g.SASS), listOrNone(g.PTX))})
		i = j
	}
	return out
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, " ")
}
