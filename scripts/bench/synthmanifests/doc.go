// Command synthmanifests writes a large synthetic set of NVIDIA
// redistributable manifests for measuring evaluation cost: copies of the
// bundled manifests (manifests/<redist>/redistrib_<version>.json, both the
// flat layout and the one with cudaNN variants), cycled until there are
// -count of them, each copy with its own version and every sha256
// replaced, so no two copies share a derivation.
//
//	go run ./scripts/bench/synthmanifests -from manifests -count 185 -out DIR
package main
