package runtimedeps

import (
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

// nixpkgsAttributes name the Nixpkgs package of the free libraries
// NVIDIA's libraries load, by the name without its version: the soname
// index says a distribution ships a name, not which Nixpkgs attribute
// has it. The graphics libraries of CUPTI's, nvperf's and checkpoint's
// tables (libGL, libEGL, libX11, libOpenCL) are left out on purpose:
// names matched against what a process has loaded as much as loaded
// (docs/runtime-dependencies.md), so they are reported, never hinted.
var nixpkgsAttributes = map[string]string{
	"libibverbs.so": "rdma-core", "librdmacm.so": "rdma-core", "libmlx5.so": "rdma-core", "libefa.so": "rdma-core",
	"libnuma.so": "numactl",
	"liburcu.so": "liburcu", "liburcu-bp.so": "liburcu", "liburcu-cds.so": "liburcu", "liburcu-common.so": "liburcu",
	"libucp.so": "ucx", "libucs.so": "ucx", "libuct.so": "ucx",
	"libfabric.so": "libfabric",
	"libpmix.so":   "pmix",
	"libmpi.so":    "mpi",
	"libz.so":      "zlib",
}

// freeProvider looks the load up in the soname index: its name, or the
// name of its glob before the first wildcard when the wildcard is a
// version (libnuma.so.* → libnuma.so.1).
func freeProvider(ix *sonameindex.Index, name, glob string) (features.LoadProvider, bool) {
	key := name
	if glob != "" {
		prefix, _, _ := strings.Cut(glob, "*")
		if !strings.Contains(prefix, ".so") {
			return features.LoadProvider{}, false
		}
		key = sonameindex.Stem(prefix)
	}
	ms := ix.Lookup(key, "")
	var sonames []string
	for _, m := range ms {
		if m.Folder == "" && Matches(name, glob, m.Name) {
			sonames = append(sonames, m.Name)
		}
	}
	if len(sonames) == 0 {
		return features.LoadProvider{}, false
	}
	return features.LoadProvider{Kind: features.ProviderFree, Package: nixpkgsAttributes[sonameindex.Stem(sonames[0])],
		Sonames: sonames, Source: ms[0].Provider, Reason: "a free library: " + ms[0].Provider + " ships it"}, true
}
