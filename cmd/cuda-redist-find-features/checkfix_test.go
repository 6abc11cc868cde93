package main

import (
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/fixrun"
)

// TestFixAliases: --fix adds aliases to the --nixpkgs tree's
// cuda-modules/aliases.nix, whatever PACKAGES_DIR is, and without
// --nixpkgs to the aliases.nix beside PACKAGES_DIR, writing in nothing
// above it.
func TestFixAliases(t *testing.T) {
	withTree := (&checkRun{nixpkgs: "/src/nixpkgs"}).aliases("/elsewhere/packages")
	if withTree != (fixrun.Aliases{Root: "/src/nixpkgs", File: "pkgs/development/cuda-modules/aliases.nix"}) {
		t.Errorf("with --nixpkgs: %+v", withTree)
	}
	beside := (&checkRun{}).aliases("/src/nixpkgs/pkgs/development/cuda-modules/packages")
	if beside != (fixrun.Aliases{Root: "/src/nixpkgs/pkgs/development/cuda-modules", File: "aliases.nix"}) {
		t.Errorf("without --nixpkgs: %+v", beside)
	}
}
