package main

import (
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func detectCommand() command {
	return command{
		name:    "detect",
		args:    "DIR",
		summary: "Print the features of an unpacked archive tree as JSON.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			out := fs.String("out", "", "write the JSON to this file (atomically) instead of stdout")
			cudaMajor := fs.String("cuda-major", "", "cudaMajorVersion for the buildRedist simulation (lib/<major> replaces lib/)")
			globstar := fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
			return func(args []string) error {
				if err := wantArgs("detect", args, 1, "one DIR"); err != nil {
					return err
				}
				f, err := detector.DetectWith(args[0], detector.Options{CudaMajor: *cudaMajor, Globstar: *globstar})
				if err != nil {
					return err
				}
				data, err := features.Encode(f)
				if err != nil {
					return err
				}
				e.log.Info("detected", "dir", args[0], "narHash", f.NarHash, "libraries", len(f.Libraries))
				return writeResult(e, *out, data)
			}
		},
	}
}
