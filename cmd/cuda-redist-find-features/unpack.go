package main

import (
	"fmt"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
)

func unpackCommand() command {
	return command{
		name:    "unpack",
		args:    "ARCHIVE OUTDIR",
		summary: "Extract a .tar.xz, .tar.gz, .tar.bz2, .tar.zst, .tar or .zip archive safely into OUTDIR.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			maxBytes := fs.Int64("max-bytes", unpack.DefaultMaxBytes, "refuse archives whose files inflate past this many bytes")
			maxRatio := fs.Int64("max-ratio", unpack.DefaultMaxRatio, fmt.Sprintf("refuse archives whose files inflate past this many times the archive's size (never below %d MiB; -1: no ratio bound)", unpack.MinRatioBound>>20))
			maxEntries := fs.Int("max-entries", unpack.DefaultMaxEntries, "refuse archives that create more files, directories and links than this (implicit parent directories count)")
			maxDepth := fs.Int("max-depth", unpack.DefaultMaxDepth, "refuse paths with more components than this")
			keepTop := fs.Bool("keep-top-level", false, "do not strip a single top-level directory")
			threads := fs.Int("threads", 0, "decode a multi-block .tar.xz on this many threads (0: one per CPU, 1: in sequence)")
			return func(args []string) error {
				if err := wantArgs("unpack", args, 2, "ARCHIVE and OUTDIR"); err != nil {
					return err
				}
				st, err := unpack.Unpack(args[0], args[1], unpack.Options{
					MaxBytes: *maxBytes, MaxRatio: *maxRatio, MaxEntries: *maxEntries, MaxDepth: *maxDepth,
					KeepTopLevel: *keepTop, Threads: *threads,
				})
				if err != nil {
					return err
				}
				e.log.Info("unpacked", "archive", args[0], "format", st.Format.String(), "files", st.Files,
					"dirs", st.Dirs, "symlinks", st.Symlinks, "bytes", st.Bytes, "strippedTopLevel", st.StrippedTopLevel)
				return nil
			}
		},
	}
}
