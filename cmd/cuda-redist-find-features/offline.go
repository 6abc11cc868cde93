package main

import (
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// offlineHelp is --offline's help (process-manifests, check-nixpkgs).
const offlineHelp = "no network: Nix asks no binary cache (--option substituters '') and tries a failed download once (--option download-attempts 1); --nix-option settings still win"

// nixOptions are the --option NAME VALUE pairs of every Nix command:
// the sandbox, --offline's, then --nix-option's, so that an explicit
// setting wins (Nix takes the last).
func (nf *nixFlags) nixOptions(sandbox bool) ([][2]string, error) {
	var opts [][2]string
	if sandbox {
		opts = append(opts, nixdriver.SandboxOption)
	}
	if *nf.offline {
		opts = append(opts, nixdriver.OfflineOptions...)
	}
	for _, o := range nf.options {
		name, value, ok := strings.Cut(o, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--nix-option %q: want NAME=VALUE", o)
		}
		opts = append(opts, [2]string{name, value})
	}
	return opts, nil
}
