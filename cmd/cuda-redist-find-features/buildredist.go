package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

func printBuildRedistCommand() command {
	return command{
		name:    "print-buildredist",
		json:    jsonDocument,
		args:    "FILE|DIR",
		summary: "Print what each package's buildRedist call should declare (from a buildRedist.json, an aggregate directory, or a directory process-manifests left results in) as a table.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			asJSON := fs.Bool("json", false, "print JSON instead of a table"+jsonErrorUsage)
			out := fs.String("out", "", "write to this file instead of stdout")
			version := fs.String("version", "", "with a directory process-manifests left results in (aggregate_<version> links): the release to read (default: the newest)")
			return func(args []string) error {
				if err := wantArgs("print-buildredist", args, 1, "one FILE or DIR"); err != nil {
					return err
				}
				path, err := aggregateFile(e, args[0], "buildRedist.json", *version)
				if err != nil {
					return err
				}
				// Read against the JSON Schema, for the messages of
				// readFormat (what the file is instead); the builder's
				// reader, with no schema in it, is lib/aggregate.ReadDecls.
				var decls map[string]features.BuildRedistDecl
				if err = readFormat(path, "buildredist", false, &decls); err != nil {
					return err
				}
				if err := e.interrupted(); err != nil {
					return err
				}
				if *asJSON {
					// As cuda-redist-aggregate's print-buildredist, the
					// buildRedist derivation's builder, writes it.
					if err := aggregate.WriteDecls(decls, *out, e.stdout); err != nil {
						return err
					}
					e.jsonWritten()
					return nil
				}
				var b strings.Builder
				writeBuildRedistTable(&b, decls)
				return writeResult(e, *out, []byte(b.String()))
			}
		},
	}
}

// writeBuildRedistTable writes one row per package; packages whose lists
// differ between platforms get the Nix expression and the per-platform
// lists on the following lines.
func writeBuildRedistTable(w io.Writer, decls map[string]features.BuildRedistDecl) {
	names := make([]string, 0, len(decls))
	for n := range decls {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACKAGE\tOUTPUTS\tSTUBS HOOK\tFHS REFERENCES")
	yes := func(b bool) string {
		if b {
			return "true"
		}
		return "-"
	}
	var differ []string
	for _, n := range names {
		d := decls[n]
		outputs := strings.Join(d.Outputs, " ")
		if len(d.Outputs) == 0 {
			outputs = "(differs by platform, see below)"
			differ = append(differ, n)
		}
		safetext.Fprintf(tw, "%s\t%s\t%s\t%s\n", n, outputs, yes(d.IncludeRemoveStubsFromRunpathHook), yes(d.AllowFHSReferences))
	}
	tw.Flush()
	for _, n := range differ {
		d := decls[n]
		safetext.Fprintf(w, "\n%s:\n  outputs = %s;\n", n, d.NixExpression)
		var platforms []string
		for p := range d.OutputsByPlatform {
			platforms = append(platforms, p)
		}
		sort.Strings(platforms)
		for _, p := range platforms {
			var variants []string
			for v := range d.OutputsByPlatform[p] {
				variants = append(variants, v)
			}
			sort.Strings(variants)
			for _, v := range variants {
				safetext.Fprintf(w, "  %s/%s: %s\n", p, v, strings.Join(d.OutputsByPlatform[p][v], " "))
			}
		}
	}
}
