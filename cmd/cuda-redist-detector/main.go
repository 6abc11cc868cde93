package main

import (
	"errors"
	"io"
	"os"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildercli"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

var program = buildercli.Program{
	Name: "cuda-redist-detector",
	Usage: `usage: cuda-redist-detector unpack [flags] ARCHIVE OUTDIR
       cuda-redist-detector detect [flags] DIR

The builder of the pipeline's unpack and detect derivations. Run with
--help after a command for its flags.
`,
	Commands: []buildercli.Command{
		{Name: "unpack", Run: runUnpack},
		{Name: "detect", Run: runDetect},
	},
}

// run is main without the process: the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return program.Run(args, stdout, stderr)
}

func runUnpack(args []string, e buildercli.Env) error {
	fs := buildercli.Flags("unpack", e.Stderr)
	options := unpack.BindFlags(fs)
	rest, err := buildercli.Parse(fs, args, 2, "ARCHIVE and OUTDIR")
	if err != nil {
		return err
	}
	st, err := unpack.Unpack(rest[0], rest[1], options())
	if err != nil {
		return err
	}
	e.Log.Info("unpacked", st.LogArgs(rest[0])...)
	return nil
}

func runDetect(args []string, e buildercli.Env) error {
	fs := buildercli.Flags("detect", e.Stderr)
	flags := facts.BindFlags(fs)
	rest, err := buildercli.Parse(fs, args, 1, "one DIR")
	if err != nil {
		return err
	}
	f, err := flags.Detect(rest[0], e.Log)
	if errors.Is(err, facts.ErrAttrsAlone) {
		return buildercli.Usagef("%v", err)
	}
	if err != nil {
		return err
	}
	data, err := features.Encode(f)
	if err != nil {
		return err
	}
	return atomicfile.WriteOrStdout(flags.Out, data, e.Stdout)
}
