package unpack

import (
	"fmt"

	flag "github.com/spf13/pflag"
)

// BindFlags defines the unpack command's flags on fs (its bounds, the
// top-level choice and the decoder's threads) and returns what gives the
// Options they were set to once fs is parsed. The detector's unpack and
// the CLI's share it, so the two commands take the same flags.
func BindFlags(fs *flag.FlagSet) func() Options {
	maxBytes := fs.Int64("max-bytes", DefaultMaxBytes, "refuse archives whose files inflate past this many bytes")
	maxRatio := fs.Int64("max-ratio", DefaultMaxRatio, fmt.Sprintf("refuse archives whose files inflate past this many times the archive's size (never below %d MiB; -1: no ratio bound)", MinRatioBound>>20))
	maxEntries := fs.Int("max-entries", DefaultMaxEntries, "refuse archives that create more files, directories and links than this (implicit parent directories count)")
	maxDepth := fs.Int("max-depth", DefaultMaxDepth, "refuse paths with more components than this")
	keepTop := fs.Bool("keep-top-level", false, "do not strip a single top-level directory")
	threads := fs.Int("threads", 0, "decode a multi-block .tar.xz on this many threads (0: one per CPU, 1: in sequence)")
	return func() Options {
		return Options{
			MaxBytes: *maxBytes, MaxRatio: *maxRatio, MaxEntries: *maxEntries, MaxDepth: *maxDepth,
			KeepTopLevel: *keepTop, Threads: *threads,
		}
	}
}

// LogArgs are the attributes of the log line that says archive was
// unpacked with these statistics.
func (st Stats) LogArgs(archive string) []any {
	return []any{"archive", archive, "format", st.Format.String(), "files", st.Files,
		"dirs", st.Dirs, "symlinks", st.Symlinks, "bytes", st.Bytes, "strippedTopLevel", st.StrippedTopLevel}
}
