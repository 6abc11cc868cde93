package schema

import "github.com/nix-cuda/cuda-redist-find-features/lib/features"

// The schemas of the run-time loads the aggregate resolves
// (lib/runtimedeps, docs/runtime-dependencies.md) and of what the
// workflow prints of them.

// providerKinds are the kinds of provider of a runtime load.
var providerKinds = []string{features.ProviderSamePackage, features.ProviderPackage, features.ProviderDriver, features.ProviderFree, features.ProviderUnknown}

// loadEvidence is one place a runtime load's name was found.
func loadEvidence() obj {
	return closed(obj{
		"kind":    enumOf([]string{"note", "soname", "template", "prefix", "path", "nearBinary", "mention"}),
		"section": str(),
		"offset":  obj{"type": "integer", "minimum": 0},
		"string":  str(),
	}, "kind", "section", "offset", "string")
}

// loadProvider is what provides a runtime load.
func loadProvider() obj {
	return closed(obj{
		"kind": enumOf(providerKinds), "package": str(), "sonames": strList(), "source": str(), "reason": str(),
	}, "kind", "reason")
}

// resolvedLoad is one load of one library, resolved (detail.json, and
// print-dependencies --json); it refers to the feature schemas' defs.
func resolvedLoad() obj {
	return closed(obj{
		"library": str(), "name": str(), "glob": str(),
		"confidence": enumOf([]string{"declared", "high", "medium"}),
		"provider":   ref("loadProvider"),
		"evidence":   ref("loadEvidence"),
	}, "library", "name", "confidence", "provider", "evidence")
}

// indexLoads are an index leaf's loads: name and provider.
func indexLoads() obj {
	return obj{"type": "array", "items": closed(obj{
		"name": str(), "provider": enumOf(providerKinds), "package": str(),
	}, "name", "provider")}
}

// packageLoads are a package's loads in buildRedist.json (which the
// report's schema holds too, without the feature defs).
func packageLoads() obj {
	return obj{"type": "array", "items": closed(obj{
		"name": str(), "glob": str(), "provider": loadProvider(), "libraries": strList(), "archives": strList(),
	}, "name", "provider", "libraries", "archives")}
}

// findingRuntimeLoad is what an unreachableRuntimeLoad hint proposes.
func findingRuntimeLoad() obj {
	return closed(obj{
		"provider": str(), "sonames": strList(), "since": str(), "until": str(),
	}, "provider", "sonames")
}
