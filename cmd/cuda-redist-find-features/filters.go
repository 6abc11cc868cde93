package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
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

// noManifestError says why no manifest of dirs was found, and what to do:
// a directory without any (and, when its subdirectories hold some, which
// to pass instead), or a filter that matches none of those it holds.
func noManifestError(dirs []string, f *filterFlags) error {
	var msgs []string
	for _, dir := range dirs {
		msgs = append(msgs, noManifestIn(dir, f))
	}
	return errors.New(strings.Join(msgs, "; "))
}

func noManifestIn(dir string, f *filterFlags) string {
	all, _ := filepath.Glob(filepath.Join(dir, "redistrib_*.json"))
	if len(all) > 0 && f.describe() == "no version filter" {
		return fmt.Sprintf("none of the %d redistrib_*.json in %s names a version (want redistrib_<version>.json, e.g. redistrib_12.8.0.json)", len(all), dir)
	}
	if len(all) > 0 {
		return fmt.Sprintf("none of the %d redistrib_<version>.json in %s matches %s", len(all), dir, f.describe())
	}
	nested, _ := filepath.Glob(filepath.Join(dir, "*", "redistrib_*.json"))
	subdirs := map[string]bool{}
	var names []string
	for _, n := range nested {
		if d := filepath.Dir(n); !subdirs[d] {
			subdirs[d] = true
			names = append(names, d)
		}
	}
	if len(names) > 0 {
		return fmt.Sprintf("no redistrib_<version>.json in %s, but its subdirectories hold some: pass the manifest directory itself (%s)", dir, strings.Join(names, ", "))
	}
	return fmt.Sprintf("no redistrib_<version>.json in %s: pass the directory holding NVIDIA's manifests (download-manifests fetches them)", dir)
}
