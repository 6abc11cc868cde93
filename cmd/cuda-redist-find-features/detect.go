package main

import (
	"errors"
	"fmt"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// detectCommand is the detector's detect (the same flags and code,
// detector/facts) with the buildRedist rules' results added, as the
// aggregate holds them (--variant, --globstar).
func detectCommand() command {
	return command{
		name:    "detect",
		args:    "DIR",
		summary: "Print the features of an unpacked archive tree as JSON.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			flags := facts.BindFlags(fs)
			variant := fs.String("variant", "", "the archive's CUDA variant (cuda12, cuda13.1): its CUDA major is the cudaMajorVersion of the buildRedist simulation (lib/<major> replaces lib/)")
			globstar := fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
			return func(args []string) error {
				if err := wantArgs("detect", args, 1, "one DIR"); err != nil {
					return err
				}
				major, err := cudaMajorOf(*variant)
				if err != nil {
					return err
				}
				f, err := flags.Detect(args[0], e.log)
				if errors.Is(err, facts.ErrAttrsAlone) {
					return usageErrorf("%v", err)
				}
				if err != nil {
					return err
				}
				if err := buildredist.Complete(f, major, *globstar); err != nil {
					return fmt.Errorf("detect %s: %w", args[0], err)
				}
				data, err := features.Encode(f)
				if err != nil {
					return err
				}
				return writeResult(e, flags.Out, data)
			}
		},
	}
}

// cudaMajorOf is the CUDA major of the buildRedist simulation: that of
// --variant ("" without it).
func cudaMajorOf(variant string) (string, error) {
	if variant == "" {
		return "", nil
	}
	major, ok := manifest.VariantCudaMajor(manifest.Variant(variant))
	if !ok {
		return "", usageErrorf("--variant %q is not a CUDA variant (cuda12, cuda13.1)", variant)
	}
	return major, nil
}
