package aggregate

import (
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/runtimedeps"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// ResolveLoads resolves the runtime loads of every entry against the
// manifest's packages, the driver and the embedded soname index
// (lib/runtimedeps), and keeps them in the entries: detail.json,
// index.json and buildRedist.json read them. The rules run here, per
// manifest, so that a change of them rebuilds the aggregates alone.
func ResolveLoads(entries []Detected) {
	archives := make([]manifest.DetectedArchive, len(entries))
	for i, e := range entries {
		archives[i] = e.DetectedArchive
	}
	r := runtimedeps.Resolver{Releases: []*runtimedeps.Release{runtimedeps.NewRelease(archives)}}
	if anyLoad(entries) {
		r.Free = sonameindex.Default()
	}
	for i := range entries {
		entries[i].Loads = r.Resolve(archives[i])
	}
}

// anyLoad: some library of the entries loads something. The embedded
// soname index (20,000 names) is read only then.
func anyLoad(entries []Detected) bool {
	for _, e := range entries {
		for _, l := range e.Features.Libraries {
			for _, rl := range l.RuntimeLoads {
				if runtimedeps.IsLoad(rl.Confidence) {
					return true
				}
			}
		}
	}
	return false
}

func resolvedArchives(entries []Detected) []runtimedeps.Resolved {
	out := make([]runtimedeps.Resolved, 0, len(entries))
	for _, e := range entries {
		out = append(out, runtimedeps.Resolved{Archive: e.Archive, Loads: e.Loads})
	}
	return out
}
