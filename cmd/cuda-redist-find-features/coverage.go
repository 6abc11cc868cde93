package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// capabilitiesFlagUsage is the --cuda-capabilities help of every command
// that takes it.
const capabilitiesFlagUsage = "Nixpkgs' cudaCapabilities, comma-separated (8.9,9.0,10.0f,12.0a); X.Y, X.Yf and X.Ya each name the GPU of " +
	"compute capability X.Y (docs/coverage.md)"

func coverageCommand() command {
	return command{
		name: "coverage",
		json: jsonDocument,
		args: "FILE|DIR",
		summary: "Say per package and library whether each of Nixpkgs' cudaCapabilities gets SASS that runs as is, PTX the driver can JIT-compile, " +
			"or nothing (a detail.json, or an aggregate directory holding one). Exit 1 with --require-capabilities when a capability gets nothing.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			caps := fs.String("cuda-capabilities", "", capabilitiesFlagUsage+" (required)")
			require := fs.Bool("require-capabilities", false, "exit 1 when a library with device code gets nothing for a capability")
			asJSON := fs.Bool("json", false, "print JSON instead of a table (fields: capabilities, archives, none)"+jsonErrorUsage)
			out := fs.String("out", "", "write to this file instead of stdout")
			return func(args []string) error {
				if err := wantArgs("coverage", args, 1, "one FILE or DIR"); err != nil {
					return err
				}
				r, err := coverageOf(e, args[0], *caps)
				if err != nil {
					return err
				}
				if err := writeTableOrJSON(e, *out, *asJSON, r, func(b *strings.Builder) { writeCoverageTable(b, r) }); err != nil {
					return err
				}
				return requireCoverage(*require, r)
			}
		},
	}
}

// coverageOf reads the detail.json of arg (a file, an aggregate
// directory, or the newest release of a results directory) and computes
// its coverage.
func coverageOf(e *env, arg, caps string) (*coverage.Report, error) {
	if caps == "" {
		return nil, usageErrorf("coverage needs --cuda-capabilities (such as 8.9,9.0,10.0f,12.0a)")
	}
	list, err := parseCapabilities(caps)
	if err != nil {
		return nil, err
	}
	path, err := aggregateFile(e, arg, "detail.json", "")
	if err != nil {
		return nil, err
	}
	var detail features.Detail
	if err := readFormat(path, "detail", true, &detail); err != nil {
		return nil, err
	}
	return coverage.OfDetail(detail, list)
}

// parseCapabilities reads --cuda-capabilities ("" for none given).
func parseCapabilities(caps string) ([]coverage.Capability, error) {
	if caps == "" {
		return nil, nil
	}
	list, err := coverage.ParseList(caps)
	if err != nil {
		return nil, usageErrorf("--cuda-capabilities: %v", err)
	}
	return list, nil
}

// requireCoverage is the error (exit 1) for gaps when they are required
// away.
func requireCoverage(require bool, r *coverage.Report) error {
	if !require || len(r.None) == 0 {
		return nil
	}
	return &exitError{code: exitFail, err: fmt.Errorf("--require-capabilities: %d library/capability pair(s) get no SASS and no PTX", len(r.None))}
}

// writeCoverageTable writes one row per archive with device code (the
// worst of its libraries), then one per library; archives without device
// code are counted at the end.
func writeCoverageTable(w io.Writer, r *coverage.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "PACKAGE\tPLATFORM\tVARIANT\tLIBRARY\t%s\n", tabbed(r.Capabilities))
	var noCode int
	for _, a := range r.Archives {
		if len(a.Libraries) == 0 {
			noCode++
			continue
		}
		cells := make([]string, len(r.Capabilities))
		for i, c := range r.Capabilities {
			cells[i] = string(a.Coverage[c])
		}
		safetext.Fprintf(tw, "%s\t%s\t%s\t(package)\t", a.Package, a.Platform, a.Variant)
		fmt.Fprintln(tw, tabbed(cells))
		for _, l := range a.Libraries {
			for i, c := range r.Capabilities {
				cells[i] = string(l.Coverage[c].Support)
			}
			safetext.Fprintf(tw, "\t\t\t%s\t", l.Path)
			fmt.Fprintln(tw, tabbed(cells))
		}
	}
	tw.Flush()
	safetext.Fprintf(w, "\n%d archive(s) without device code (not shown; --json lists them).\n", noCode)
	safetext.Fprintf(w, "%d library/capability pair(s) get nothing", len(r.None))
	if len(r.None) == 0 {
		fmt.Fprintln(w, ".")
		return
	}
	fmt.Fprintln(w, ":")
	for _, g := range r.None {
		safetext.Fprintf(w, "  %s %s %s %s: %s (SASS %s; PTX %s)\n", g.Package, g.Platform, g.Variant, g.Library, g.Capability, orNone(g.SASS), orNone(g.PTX))
	}
}

// tabbed is the cells of a table row, each escaped, between tabs.
func tabbed(cells []string) string {
	escaped := make([]string, len(cells))
	for i, c := range cells {
		escaped[i] = safetext.Escape(c)
	}
	return strings.Join(escaped, "\t")
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, " ")
}
