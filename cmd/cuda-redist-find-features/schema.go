package main

import (
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func manifestSchemaCommand() command {
	return command{
		name:    "print-manifest-schema",
		summary: "Print the JSON Schema (draft 2020-12) of NVIDIA's redistrib_<version>.json manifests.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			return func(args []string) error {
				if len(args) != 0 {
					return usageErrorf("print-manifest-schema takes no arguments")
				}
				return printJSON(e, schema.Manifest())
			}
		},
	}
}

func featureSchemaCommand() command {
	return command{
		name:    "print-feature-schema",
		summary: "Print the JSON Schema (draft 2020-12) of a feature format.",
		values:  map[string][]string{"format": schema.Formats},
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			format := fs.String("format", "legacy", "which format: "+strings.Join(schema.Formats, ", "))
			return func(args []string) error {
				if len(args) != 0 {
					return usageErrorf("print-feature-schema takes no arguments")
				}
				doc, err := schema.Feature(*format)
				if err != nil {
					return usageErrorf("--format: %v", err)
				}
				return printJSON(e, doc)
			}
		},
	}
}

func printJSON(e *env, v any) error {
	data, err := features.Encode(v)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(data)
	return err
}
