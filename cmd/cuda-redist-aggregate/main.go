package main

import (
	"io"
	"os"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildercli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

var program = buildercli.Program{
	Name: "cuda-redist-aggregate",
	Usage: `usage: cuda-redist-aggregate aggregate [--attrs FILE]
       cuda-redist-aggregate merge-index [--attrs FILE] [--out FILE] [INDEX.json...]
       cuda-redist-aggregate print-buildredist --json [--out FILE] FILE|DIR

The builder of the pipeline's aggregate, merged-index and buildRedist
derivations. Run with --help after a command for its flags.
`,
	Commands: []buildercli.Command{
		{Name: "aggregate", Run: runAggregate},
		{Name: "merge-index", Run: runMergeIndex},
		{Name: "print-buildredist", Run: runPrintBuildRedist},
	},
}

// run is main without the process: the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return program.Run(args, stdout, stderr)
}

func runAggregate(args []string, e buildercli.Env) error {
	fs := buildercli.Flags("aggregate", e.Stderr)
	attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
	if _, err := buildercli.Parse(fs, args, 0, "no arguments"); err != nil {
		return err
	}
	return aggregate.BuildFromAttrs(*attrsFile, e.Log)
}

func runMergeIndex(args []string, e buildercli.Env) error {
	fs := buildercli.Flags("merge-index", e.Stderr)
	attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json when no files are given)")
	out := fs.String("out", "", "write the merged index here instead of stdout")
	paths, err := buildercli.Parse(fs, args, -1, "")
	if err != nil {
		return err
	}
	return aggregate.MergeIndex(*attrsFile, paths, *out, e.Stdout)
}

// runPrintBuildRedist is the buildRedist derivation's builder: the
// declarations of an aggregate as JSON. The table is the CLI's
// print-buildredist (printing is CLI code: a change to it leaves this
// program, and every derivation it builds, as they are); --json is
// required, so that the derivation's arguments mean the same to both.
func runPrintBuildRedist(args []string, e buildercli.Env) error {
	fs := buildercli.Flags("print-buildredist", e.Stderr)
	asJSON := fs.Bool("json", false, "print JSON (required: the table is the CLI's)")
	out := fs.String("out", "", "write to this file instead of stdout")
	rest, err := buildercli.Parse(fs, args, 1, "one FILE or DIR")
	if err != nil {
		return err
	}
	if !*asJSON {
		return buildercli.Usagef("print-buildredist prints JSON only (--json): the table is cuda-redist-find-features print-buildredist's")
	}
	decls, err := aggregate.ReadDecls(aggregate.BuildRedistFile(rest[0]))
	if err != nil {
		return err
	}
	return aggregate.WriteDecls(decls, *out, e.Stdout)
}
