package main

import (
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
)

func unpackCommand() command {
	return command{
		name:    "unpack",
		args:    "ARCHIVE OUTDIR",
		summary: "Extract a .tar.xz, .tar.gz, .tar.bz2, .tar.zst, .tar or .zip archive safely into OUTDIR.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			options := unpack.BindFlags(fs)
			return func(args []string) error {
				if err := wantArgs("unpack", args, 2, "ARCHIVE and OUTDIR"); err != nil {
					return err
				}
				st, err := unpack.Unpack(args[0], args[1], options())
				if err != nil {
					return err
				}
				e.log.Info("unpacked", st.LogArgs(args[0])...)
				return nil
			}
		},
	}
}
