package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: cuda-redist-aggregate aggregate [--attrs FILE]
       cuda-redist-aggregate merge-index [--attrs FILE] [--out FILE] [INDEX.json...]

The builder of the pipeline's aggregate and merged-index derivations. Run
with --help after a command for its flags.
`

// errUsage marks a misuse of the command line (exit status 2).
var errUsage = errors.New("usage")

// run is main without the process: the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "aggregate":
		err = runAggregate(args[1:], stderr, log)
	case "merge-index":
		err = runMergeIndex(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q (aggregate, merge-index)", errUsage, args[0])
	}
	return exitCode(err, stderr)
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "cuda-redist-aggregate: %v\n%s", err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "cuda-redist-aggregate: %v\n", err)
	return 1
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true)
	return fs
}

func runAggregate(args []string, stderr io.Writer, log *slog.Logger) error {
	fs := newFlags("aggregate", stderr)
	attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: aggregate takes no arguments, got %d", errUsage, fs.NArg())
	}
	var a aggregate.Attrs
	if _, err := builderattrs.Load(*attrsFile, &a); err != nil {
		return err
	}
	return aggregate.Build(a, log)
}

func runMergeIndex(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge-index", stderr)
	attrsFile := fs.String("attrs", "", "structured attributes file (default: $NIX_BUILD_TOP/.attrs.json when no files are given)")
	out := fs.String("out", "", "write the merged index here instead of stdout")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	paths, dest := fs.Args(), *out
	if len(paths) == 0 {
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
	if dest == "" {
		_, err = stdout.Write(data)
		return err
	}
	return atomicfile.Write(dest, data)
}

// flagError is a flag parse error as a usage error (help as is).
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
}
