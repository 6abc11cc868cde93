package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: cuda-redist-detector unpack [flags] ARCHIVE OUTDIR
       cuda-redist-detector detect [flags] DIR

The builder of the pipeline's unpack and detect derivations. Run with
--help after a command for its flags.
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
	case "unpack":
		err = runUnpack(args[1:], stderr, log)
	case "detect":
		err = runDetect(args[1:], stdout, stderr, log)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q (unpack, detect)", errUsage, args[0])
	}
	return exitCode(err, stderr)
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "cuda-redist-detector: %v\n%s", err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "cuda-redist-detector: %v\n", err)
	return 1
}

// newFlags is a flag set that reports its errors as usage errors.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true)
	return fs
}

func parse(fs *flag.FlagSet, args []string, want int, what string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
	}
	if fs.NArg() != want {
		return nil, fmt.Errorf("%w: %s takes %s, got %d arguments", errUsage, fs.Name(), what, fs.NArg())
	}
	return fs.Args(), nil
}

func runUnpack(args []string, stderr io.Writer, log *slog.Logger) error {
	fs := newFlags("unpack", stderr)
	maxBytes := fs.Int64("max-bytes", unpack.DefaultMaxBytes, "refuse archives whose files inflate past this many bytes")
	maxRatio := fs.Int64("max-ratio", unpack.DefaultMaxRatio, fmt.Sprintf("refuse archives whose files inflate past this many times the archive's size (never below %d MiB; -1: no ratio bound)", unpack.MinRatioBound>>20))
	maxEntries := fs.Int("max-entries", unpack.DefaultMaxEntries, "refuse archives that create more files, directories and links than this (implicit parent directories count)")
	maxDepth := fs.Int("max-depth", unpack.DefaultMaxDepth, "refuse paths with more components than this")
	keepTop := fs.Bool("keep-top-level", false, "do not strip a single top-level directory")
	threads := fs.Int("threads", 0, "decode a multi-block .tar.xz on this many threads (0: one per CPU, 1: in sequence)")
	rest, err := parse(fs, args, 2, "ARCHIVE and OUTDIR")
	if err != nil {
		return err
	}
	st, err := unpack.Unpack(rest[0], rest[1], unpack.Options{
		MaxBytes: *maxBytes, MaxRatio: *maxRatio, MaxEntries: *maxEntries, MaxDepth: *maxDepth,
		KeepTopLevel: *keepTop, Threads: *threads,
	})
	if err != nil {
		return err
	}
	log.Info("unpacked", "archive", rest[0], "format", st.Format.String(), "files", st.Files,
		"dirs", st.Dirs, "symlinks", st.Symlinks, "bytes", st.Bytes, "strippedTopLevel", st.StrippedTopLevel)
	return nil
}

func runDetect(args []string, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := newFlags("detect", stderr)
	out := fs.String("out", "", "write the JSON to this file (atomically) instead of stdout")
	fromNix := fs.Bool("nar-hash-from-nix", false, "as a Nix builder: take DIR's NAR hash from the structured attributes (exportReferencesGraph) instead of hashing DIR")
	attrsFile := fs.String("attrs", "", "with --nar-hash-from-nix: the structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
	maxBytes := fs.Int64("max-bytes", facts.DefaultMaxBytes, "refuse trees with more file content than this many bytes (a hard-linked file counts once per name, as in the NAR)")
	maxEntries := fs.Int("max-entries", facts.DefaultMaxEntries, "refuse trees with more files, directories and symlinks than this")
	rest, err := parse(fs, args, 1, "one DIR")
	if err != nil {
		return err
	}
	if *attrsFile != "" && !*fromNix {
		return fmt.Errorf("%w: --attrs is read only with --nar-hash-from-nix", errUsage)
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
			log.Warn("fatbin: "+w, "library", lib.Path)
		}
	}
	log.Info("detected", "dir", rest[0], "narHash", f.NarHash, "libraries", len(f.Libraries))
	return writeFacts(f, *out, stdout)
}

// writeFacts writes the detection as canonical JSON to out, or stdout
// when out is "".
func writeFacts(f *features.Features, out string, stdout io.Writer) error {
	data, err := features.Encode(f)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return atomicfile.Write(out, data)
}
