package main

import (
	"io"
	"os"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
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
	out := fs.String("out", "", "write the JSON to this file (atomically) instead of stdout")
	fromNix := fs.Bool("nar-hash-from-nix", false, "as a Nix builder: take DIR's NAR hash from the structured attributes (exportReferencesGraph) instead of hashing DIR")
	attrsFile := fs.String("attrs", "", "with --nar-hash-from-nix: the structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
	maxBytes := fs.Int64("max-bytes", facts.DefaultMaxBytes, "refuse trees with more file content than this many bytes (a hard-linked file counts once per name, as in the NAR)")
	maxEntries := fs.Int("max-entries", facts.DefaultMaxEntries, "refuse trees with more files, directories and symlinks than this")
	rest, err := buildercli.Parse(fs, args, 1, "one DIR")
	if err != nil {
		return err
	}
	if *attrsFile != "" && !*fromNix {
		return buildercli.Usagef("--attrs is read only with --nar-hash-from-nix")
	}
	opts := facts.Options{MaxBytes: *maxBytes, MaxEntries: *maxEntries}
	if *fromNix {
		if opts.NarHash, err = builderattrs.NarHashOf(*attrsFile, rest[0]); err != nil {
			return err
		}
	}
	f, err := facts.DetectWith(rest[0], opts)
	if err != nil {
		return err
	}
	for _, lib := range f.Libraries {
		for _, w := range lib.FatbinWarnings {
			e.Log.Warn("fatbin: "+w, "library", lib.Path)
		}
	}
	e.Log.Info("detected", "dir", rest[0], "narHash", f.NarHash, "libraries", len(f.Libraries))
	return writeFacts(f, *out, e.Stdout)
}

// writeFacts writes the detection as canonical JSON to out, or stdout
// when out is "".
func writeFacts(f *features.Features, out string, stdout io.Writer) error {
	data, err := features.Encode(f)
	if err != nil {
		return err
	}
	return atomicfile.WriteOrStdout(out, data, stdout)
}
