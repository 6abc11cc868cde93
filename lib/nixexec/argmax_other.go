//go:build !linux

package nixexec

// kernelArgLimit is the smallest ARG_MAX of the other systems Nix runs
// on (256 KiB: macOS before 10.15 had it; later ones 1 MiB).
func kernelArgLimit() int { return 256 << 10 }
