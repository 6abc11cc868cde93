package main

import (
	"os"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// filterFlags are the version filters and parallelism flags that
// download-manifests and process-manifests share with upstream.
type filterFlags struct {
	version, min, max *string
	noParallel        *bool
}

func addFilterFlags(fs *flag.FlagSet) *filterFlags {
	return &filterFlags{
		version:    fs.String("version", "", "the one manifest version to accept (exclusive with --min-version/--max-version)"),
		min:        fs.String("min-version", "", "the lowest manifest version to accept"),
		max:        fs.String("max-version", "", "the highest manifest version to accept"),
		noParallel: fs.Bool("no-parallel", false, "one at a time (default: in parallel)"),
	}
}

func (f *filterFlags) filter() (manifest.Filter, error) {
	flt, err := manifest.NewFilter(*f.version, *f.min, *f.max)
	if err != nil {
		return flt, usageErrorf("%v", err)
	}
	return flt, nil
}

// describe names the filters given, for "nothing matches" errors.
func (f *filterFlags) describe() string {
	var parts []string
	for _, p := range []struct{ name, value string }{{"--version", *f.version}, {"--min-version", *f.min}, {"--max-version", *f.max}} {
		if p.value != "" {
			parts = append(parts, p.name+" "+p.value)
		}
	}
	if len(parts) == 0 {
		return "no version filter"
	}
	return strings.Join(parts, " ")
}

func (f *filterFlags) serial() bool { return *f.noParallel }

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
