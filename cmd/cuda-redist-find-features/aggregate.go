package main

import (
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
)

// aggregateCommand and mergeIndexCommand are cuda-redist-aggregate's
// commands of the same names, for a pipeline without it: the same code
// (lib/aggregate) under the CLI's flags.
func aggregateCommand() command {
	return command{
		name:    "aggregate",
		args:    "",
		summary: "Nix builder: merge a manifest's detection results into feature_<version>.json, index.json, detail.json and buildRedist.json.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
			return func(args []string) error {
				if len(args) != 0 {
					return usageErrorf("aggregate takes no arguments")
				}
				return aggregate.BuildFromAttrs(*attrsFile, e.log)
			}
		},
	}
}

func mergeIndexCommand() command {
	return command{
		name:    "merge-index",
		args:    "[INDEX.json...]",
		summary: "Merge index.json files of several manifests (as a Nix builder: from structured attributes).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json when no files are given)")
			out := fs.String("out", "", "write the merged index here instead of stdout")
			return func(args []string) error {
				return aggregate.MergeIndex(*attrsFile, args, *out, e.stdout)
			}
		},
	}
}
