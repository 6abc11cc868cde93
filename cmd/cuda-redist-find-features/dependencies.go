package main

import (
	"fmt"
	"io"
	"path"
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
		summary: "Print, per package, the sonames its libraries need from other packages and which package of the release provides each, " +
			"then what they load at run time (dlopen) with its provider (another package, the package itself, the driver, a free library, or unknown) and the evidence " +
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
	// RuntimeLoads are what the archive's libraries load at run time
	// (dlopen), resolved by the aggregate (detail.json), with the evidence.
	RuntimeLoads []features.ResolvedLoad `json:"runtimeLoads"`
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
		loads := detail[a.Package][a.Platform][a.Variant.String()].RuntimeLoads
		if len(needs) == 0 && len(loads) == 0 {
			continue
		}
		if loads == nil {
			loads = []features.ResolvedLoad{}
		}
		row := dependencyRow{Package: a.Package, Platform: a.Platform, Variant: a.Variant, Needs: needs, Unresolved: []string{}, RuntimeLoads: loads}
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
	header := "PACKAGE\tPLATFORM\tVARIANT\tNEEDS\tPROVIDED BY"
	for _, r := range rows {
		if len(r.RuntimeLoads) > 0 {
			header += "\tEVIDENCE (loaded at run time)"
			break
		}
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		first := true
		lead := func() string {
			if first {
				first = false
				return safetext.Escape(r.Package) + "\t" + safetext.Escape(r.Platform) + "\t" + safetext.Escape(r.Variant.String()) + "\t"
			}
			return "\t\t\t"
		}
		for _, n := range r.Needs {
			by := strings.Join(n.Providers, " ")
			if by == "" {
				by = "(nothing in the release)"
			}
			fmt.Fprintf(tw, "%s%s\t%s\n", lead(), safetext.Escape(n.Soname), safetext.Escape(by))
		}
		for _, l := range r.RuntimeLoads {
			fmt.Fprintf(tw, "%s%s (run time)\t%s\t%s\n", lead(), safetext.Escape(l.Name), safetext.Escape(providerText(l.Provider)), safetext.Escape(evidenceText(l)))
		}
	}
	tw.Flush()
}

// providerText is a load's provider as the table says it.
func providerText(p features.LoadProvider) string {
	switch p.Kind {
	case features.ProviderPackage:
		return p.Package
	case features.ProviderSamePackage:
		return "(the package itself)"
	case features.ProviderDriver:
		return "(the driver)"
	case features.ProviderFree:
		if p.Package != "" {
			return p.Package + " (free: " + p.Source + ")"
		}
		return "(a free library: " + p.Source + ")"
	}
	return "(unknown)"
}

// evidenceText: the loading library, the confidence and the strongest
// place the name was found.
func evidenceText(l features.ResolvedLoad) string {
	e := l.Evidence
	return fmt.Sprintf("%s, %s: %s in %s at %#x", path.Base(l.Library), l.Confidence, e.Kind, e.Section, e.Offset)
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
