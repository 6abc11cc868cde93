package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"
	"text/tabwriter"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/vendored"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
)

func printVendoredCommand() command {
	return command{
		name: "print-vendored",
		json: jsonDocument,
		args: "FILE|DIR",
		summary: "Print, per package, the third-party libraries NVIDIA ships inside its archives (vendored: a free distribution ships the soname, " +
			"no NVIDIA package provides it), what provides each in a free distribution and which libraries need it " +
			"(from a detail.json, an aggregate directory, or a directory process-manifests left results in; docs/vendored.md).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			asJSON := fs.Bool("json", false, "print JSON instead of a table"+jsonErrorUsage)
			out := fs.String("out", "", "write to this file instead of stdout")
			version := fs.String("version", "", "with a directory process-manifests left results in (aggregate_<version> links): the release to read (default: the newest)")
			indexes := fs.StringArray("soname-index", nil, "a soname index to read besides the default (repeatable): plain text or nix-locate output (docs/vendored.md)")
			noDefault := fs.Bool("no-default-index", false, "leave out the default index (Debian bookworm main's sonames): only --soname-index files count")
			return func(args []string) error {
				if err := wantArgs("print-vendored", args, 1, "one FILE or DIR"); err != nil {
					return err
				}
				ix, err := loadSonameIndex(e, *indexes, *noDefault)
				if err != nil {
					return err
				}
				detail, err := readDetailArg(e, args[0], *version)
				if err != nil {
					return err
				}
				archives := vendored.FromDetail(detail)
				results := vendored.Check(archives, vendored.NVIDIASonames(archives), ix)
				return writeTableOrJSON(e, *out, *asJSON, results, func(b *strings.Builder) {
					if len(results) == 0 { // said in words, not a bare header
						fmt.Fprintf(b, "No vendored library: no shared library of the %d archive(s) is in the soname index (%s).\n", len(archives), indexSources(ix))
						return
					}
					writeVendoredTable(b, results)
				})
			}
		},
	}
}

// loadSonameIndex reads the default index (unless left out) and the
// files named, and says what each file gave: its entries and the lines
// left out.
func loadSonameIndex(e *env, files []string, noDefault bool) (*sonameindex.Index, error) {
	if noDefault && len(files) == 0 {
		return nil, usageErrorf("--no-default-index needs at least one --soname-index FILE")
	}
	ix := sonameindex.New()
	if !noDefault {
		ix = sonameindex.Default()
	}
	for _, name := range files {
		entries, skipped, dropped := ix.Len(), ix.Skipped(), ix.Dropped()
		if err := readSonameIndex(ix, name); err != nil {
			return nil, err
		}
		// A WARN when lines were skipped: the default level shows it, and
		// a count of zero would be noise.
		level := slog.LevelInfo
		if ix.Skipped() > skipped {
			level = slog.LevelWarn
		}
		e.log.Log(context.Background(), level, "soname index read", "file", name, "entries", ix.Len()-entries,
			"skippedNotInLib", ix.Skipped()-skipped, "droppedOverPerName", ix.Dropped()-dropped)
	}
	return ix, nil
}

// indexSources names the index's files and, when there were any, the
// nix-locate lines left out as not under a store path's lib/.
func indexSources(ix *sonameindex.Index) string {
	s := strings.Join(ix.Sources, ", ")
	if n := ix.Skipped(); n > 0 {
		s += fmt.Sprintf("; %d nix-locate lines not under a store path's lib/ skipped", n)
	}
	return s
}

func readSonameIndex(ix *sonameindex.Index, name string) error {
	f, err := inputfile.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return ix.Read(f, name)
}

// writeVendoredTable prints one row per vendored library, then the ties
// decided for NVIDIA.
func writeVendoredTable(w io.Writer, results []vendored.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACKAGE\tPLATFORM\tVARIANT\tLIBRARY\tUPSTREAM\tIN A FREE DISTRIBUTION\tNEEDED BY")
	var ties []string
	for _, r := range results {
		first := true
		for _, v := range r.Vendored {
			var pkg, platform, variant string // on the archive's first row only
			if first {
				pkg, platform, variant, first = r.Package, r.Platform, r.Variant.String(), false
			}
			// safetext: a newline or tab in a name must not forge a row.
			safetext.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pkg, platform, variant, v.Path, v.Upstream, indexSummary(v.Index), neededSummary(v.NeededBy))
		}
		for _, tie := range r.NVIDIA {
			ties = append(ties, safetext.Sprintf("%s %s: %s is NVIDIA's (%s provides it), though the index has %s", r.Package, tie.Path, tie.Name,
				strings.Join(tie.Packages, ", "), strings.Join(tie.Index, ", ")))
		}
	}
	tw.Flush()
	if len(ties) > 0 {
		fmt.Fprintln(w, "\nNot vendored, NVIDIA's (a package of the manifests provides the soname in lib/):")
		for _, s := range ties {
			fmt.Fprintln(w, "  "+s)
		}
	}
}

// indexSummary is the first match and how many more there are.
func indexSummary(ms []sonameindex.Match) string {
	m := ms[0]
	s := m.Name + " (" + m.Provider + ")"
	if m.How != sonameindex.MatchExact {
		s += " [" + m.How + "]"
	}
	if len(ms) > 1 {
		s += fmt.Sprintf(" +%d", len(ms)-1)
	}
	return s
}

// neededSummary names up to three libraries needing a library by file
// name, and how many more; "-" when none does (a plugin is dlopen'ed).
func neededSummary(paths []string) string {
	if len(paths) == 0 {
		return "-"
	}
	var names []string
	for _, p := range paths[:min(3, len(paths))] {
		names = append(names, path.Base(p))
	}
	s := strings.Join(names, " ")
	if len(paths) > 3 {
		s += fmt.Sprintf(" +%d", len(paths)-3)
	}
	return s
}
