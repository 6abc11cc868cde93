package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/sonames"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

func printDependenciesCommand() command {
	return command{
		name: "print-dependencies",
		json: jsonDocument,
		args: "FILE|DIR",
		summary: "Print, per package, the sonames its libraries need from other packages and which package of the release provides each " +
			"(from a detail.json, an aggregate directory, or a directory process-manifests left results in).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			asJSON := fs.Bool("json", false, "print JSON instead of a table"+jsonErrorUsage)
			out := fs.String("out", "", "write to this file instead of stdout")
			version := fs.String("version", "", "with a directory process-manifests left results in (aggregate_<version> links): the release to read (default: the newest)")
			return func(args []string) error {
				if err := wantArgs("print-dependencies", args, 1, "one FILE or DIR"); err != nil {
					return err
				}
				detail, err := readDetailArg(e, args[0], *version)
				if err != nil {
					return err
				}
				rows := dependencyRows(detail)
				return writeTableOrJSON(e, *out, *asJSON, rows, func(b *strings.Builder) { writeDependencyTable(b, rows) })
			}
		},
	}
}

// dependencyRow is one archive's needs.
type dependencyRow struct {
	Package  string           `json:"package"`
	Platform string           `json:"platform"`
	Variant  manifest.Variant `json:"variant"`
	Needs    []sonames.Need   `json:"needs"`
	// Unresolved are the needed sonames no package of the release provides.
	Unresolved []string `json:"unresolved"`
}

func dependencyRows(detail features.Detail) []dependencyRow {
	var archives []sonames.Archive
	for _, a := range manifest.DetailArchives(detail) {
		if a.Features != nil {
			archives = append(archives, sonames.FromFeatures(a.Archive, a.Features))
		}
	}
	sort.Slice(archives, func(i, j int) bool {
		a, b := archives[i], archives[j]
		return a.Package+"\x00"+a.Platform+"\x00"+a.Variant.String() < b.Package+"\x00"+b.Platform+"\x00"+b.Variant.String()
	})
	ix := sonames.NewIndex(archives)
	rows := []dependencyRow{}
	for _, a := range archives {
		needs := sonames.Needs(a, ix)
		if len(needs) == 0 {
			continue
		}
		row := dependencyRow{Package: a.Package, Platform: a.Platform, Variant: a.Variant, Needs: needs, Unresolved: []string{}}
		for _, n := range needs {
			if len(n.Providers) == 0 {
				row.Unresolved = append(row.Unresolved, n.Soname)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func writeDependencyTable(w io.Writer, rows []dependencyRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(rows) == 0 {
		fmt.Fprintln(w, "no library of this release needs a soname of another package (nothing to show)")
		return
	}
	fmt.Fprintln(tw, "PACKAGE\tPLATFORM\tVARIANT\tNEEDS\tPROVIDED BY")
	for _, r := range rows {
		for i, n := range r.Needs {
			by := strings.Join(n.Providers, " ")
			if by == "" {
				by = "(nothing in the release)"
			}
			if i == 0 {
				safetext.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Package, r.Platform, r.Variant, n.Soname, by)
			} else {
				safetext.Fprintf(tw, "\t\t\t%s\t%s\n", n.Soname, by)
			}
		}
	}
	tw.Flush()
}

// readDetailArg reads the detail.json that FILE|DIR names (a detail.json,
// an aggregate directory, or a directory process-manifests left results
// in, of release version or the newest).
func readDetailArg(e *env, arg, version string) (features.Detail, error) {
	path, err := aggregateFile(e, arg, "detail.json", version)
	if err != nil {
		return nil, err
	}
	var detail features.Detail
	if err = readFormat(path, "detail", true, &detail); err != nil {
		return nil, err
	}
	return detail, nil
}
