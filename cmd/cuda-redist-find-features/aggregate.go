package main

import (
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
)

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
				var a aggregate.Attrs
				if _, err := builderattrs.Load(*attrsFile, &a); err != nil {
					return err
				}
				return aggregate.Build(a, e.log)
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
				paths, dest := args, *out
				if len(args) == 0 {
					var a aggregate.MergeAttrs
					if _, err := builderattrs.Load(*attrsFile, &a); err != nil {
						return err
					}
					o, err := a.Out()
					if err != nil {
						return err
					}
					paths, dest = a.Indexes, o
				}
				data, err := aggregate.MergeIndexFiles(paths)
				if err != nil {
					return err
				}
				return writeResult(e, dest, data)
			}
		},
	}
}
