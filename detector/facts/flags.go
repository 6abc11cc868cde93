package facts

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Flags are the detect command's flags: where the JSON goes, the walk's
// bounds, and where the tree's NAR hash comes from. The detector's detect
// and the CLI's define them with BindFlags and run Detect, so the two
// commands take the same flags and do the same work.
type Flags struct {
	// Out is the file the JSON is written to ("": stdout).
	Out string
	// NarHashFromNix takes the tree's NAR hash from the builder's
	// structured attributes (Attrs) instead of hashing the tree.
	NarHashFromNix bool
	// Attrs is the structured attributes file ("": $NIX_BUILD_TOP/.attrs.json).
	Attrs string
	// Options are the walk's bounds.
	Options Options
}

// ErrAttrsAlone is the misuse of --attrs without --nar-hash-from-nix;
// each program reports it as its own usage error.
var ErrAttrsAlone = errors.New("--attrs is read only with --nar-hash-from-nix")

// BindFlags defines the detect command's flags on fs; their values are in
// the result once fs is parsed.
func BindFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Out, "out", "", "write the JSON to this file (atomically) instead of stdout")
	fs.BoolVar(&f.NarHashFromNix, "nar-hash-from-nix", false, "as a Nix builder: take DIR's NAR hash from the structured attributes (exportReferencesGraph) instead of hashing DIR")
	fs.StringVar(&f.Attrs, "attrs", "", "with --nar-hash-from-nix: the structured attributes file (default: $NIX_BUILD_TOP/.attrs.json)")
	fs.Int64Var(&f.Options.MaxBytes, "max-bytes", DefaultMaxBytes, "refuse trees with more file content than this many bytes (a hard-linked file counts once per name, as in the NAR)")
	fs.IntVar(&f.Options.MaxEntries, "max-entries", DefaultMaxEntries, "refuse trees with more files, directories and symlinks than this")
	return f
}

// Detect is the detect command once its flags are parsed: the facts of
// the tree at dir under f's bounds (its NAR hash from the structured
// attributes when f says so), with what the fatbin reader did not
// understand and a summary logged to log.
func (f *Flags) Detect(dir string, log *slog.Logger) (*features.Features, error) {
	if f.Attrs != "" && !f.NarHashFromNix {
		return nil, ErrAttrsAlone
	}
	if err := wantDir(dir); err != nil {
		return nil, err
	}
	opts := f.Options
	if f.NarHashFromNix {
		var err error
		if opts.NarHash, err = builderattrs.NarHashOf(f.Attrs, dir); err != nil {
			return nil, err
		}
	}
	facts, err := DetectWith(dir, opts)
	if err != nil {
		return nil, err
	}
	for _, lib := range facts.Libraries {
		for _, w := range lib.FatbinWarnings {
			log.Warn("fatbin: "+w, "library", lib.Path)
		}
	}
	log.Info("detected", "dir", dir, "narHash", facts.NarHash, "libraries", len(facts.Libraries))
	return facts, nil
}

// wantDir refuses a path that is no directory, saying which it is.
func wantDir(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("DIR %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("DIR %s is no directory (want an unpacked archive tree; unpack ARCHIVE OUTDIR unpacks one)", path)
	}
	return nil
}
