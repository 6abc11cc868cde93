package main

import (
	"fmt"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func detectCommand() command {
	return command{
		name:    "detect",
		args:    "DIR",
		summary: "Print the features of an unpacked archive tree as JSON.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			out := fs.String("out", "", "write the JSON to this file (atomically) instead of stdout")
			variant := fs.String("variant", "", "the archive's CUDA variant (cuda12, cuda13.1): its CUDA major is the cudaMajorVersion of the buildRedist simulation (lib/<major> replaces lib/)")
			globstar := fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
			fromNix := fs.Bool("nar-hash-from-nix", false, "as a Nix builder: take DIR's NAR hash from the structured attributes (exportReferencesGraph) instead of hashing DIR")
			attrsFile := fs.String("attrs", "", "with --nar-hash-from-nix: the structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
			maxBytes := fs.Int64("max-bytes", facts.DefaultMaxBytes, "refuse trees with more file content than this many bytes (a hard-linked file counts once per name, as in the NAR)")
			maxEntries := fs.Int("max-entries", facts.DefaultMaxEntries, "refuse trees with more files, directories and symlinks than this")
			// The flag before --variant: still taken, hidden, with a warning.
			cudaMajor := fs.String("cuda-major", "", "the old form of --variant: the CUDA major itself")
			_ = fs.MarkHidden("cuda-major")
			return func(args []string) error {
				if err := wantArgs("detect", args, 1, "one DIR"); err != nil {
					return err
				}
				opts := facts.Options{MaxBytes: *maxBytes, MaxEntries: *maxEntries}
				major, err := cudaMajorOf(e, *variant, *cudaMajor)
				if err != nil {
					return err
				}
				if opts.NarHash, err = narHashFromNix(*fromNix, *attrsFile, args[0]); err != nil {
					return err
				}
				f, err := detectCompleted(args[0], opts, major, *globstar)
				if err != nil {
					return err
				}
				data, err := features.Encode(f)
				if err != nil {
					return err
				}
				warnFatbin(e, f)
				e.log.Info("detected", "dir", args[0], "narHash", f.NarHash, "libraries", len(f.Libraries))
				return writeResult(e, *out, data)
			}
		},
	}
}

// narHashFromNix is --nar-hash-from-nix's hash of dir, from the builder's
// structured attributes (--attrs), or "" without it.
func narHashFromNix(fromNix bool, attrsFile, dir string) (string, error) {
	if attrsFile != "" && !fromNix {
		return "", usageErrorf("--attrs is read only with --nar-hash-from-nix")
	}
	if !fromNix {
		return "", nil
	}
	return builderattrs.NarHashOf(attrsFile, dir)
}

// detectCompleted detects the tree at dir and adds the buildRedist rules'
// results, as the aggregate holds them.
func detectCompleted(dir string, opts facts.Options, major string, globstar bool) (*features.Features, error) {
	if err := wantDir("DIR", dir); err != nil {
		return nil, err
	}
	f, err := facts.DetectWith(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := buildredist.Complete(f, major, globstar); err != nil {
		return nil, fmt.Errorf("detect %s: %w", dir, err)
	}
	return f, nil
}

// warnFatbin logs, per library, what in its fatbin entries detect
// did not understand (the same lines are in its fatbinWarnings).
func warnFatbin(e *env, f *features.Features) {
	for _, lib := range f.Libraries {
		for _, w := range lib.FatbinWarnings {
			e.log.Warn("fatbin: "+w, "library", lib.Path)
		}
	}
}

// cudaMajorOf is the CUDA major of the buildRedist simulation: that of
// --variant, or --cuda-major, its old form (a warning says so).
func cudaMajorOf(e *env, variant, cudaMajor string) (string, error) {
	if variant != "" && cudaMajor != "" {
		return "", usageErrorf("--variant and --cuda-major both name the CUDA major: give --variant alone")
	}
	if cudaMajor != "" {
		e.log.Warn("--cuda-major is deprecated: use --variant cuda" + cudaMajor)
		variant = "cuda" + cudaMajor
	}
	if variant == "" {
		return "", nil
	}
	major, ok := manifest.VariantCudaMajor(manifest.Variant(variant))
	if !ok {
		return "", usageErrorf("--variant %q is not a CUDA variant (cuda12, cuda13.1)", variant)
	}
	return major, nil
}

// wantDir refuses a path that is no directory, saying which it is.
func wantDir(what, path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w", what, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s is no directory (want an unpacked archive tree; unpack ARCHIVE OUTDIR unpacks one)", what, path)
	}
	return nil
}
