package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

func reportCommand() command {
	return command{
		name:    "report",
		args:    "DIR...",
		summary: "Write report.html and report.json of aggregate directories of one redist: outputs, GPU coverage, soname graph, changes. A DIR is an aggregate directory, or a directory process-manifests left aggregate_<version> links in (all its releases).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			out := fs.String("out", "", "directory to write report.html and report.json into (required)")
			against := fs.String("against", "", "compare the newest release with this version (default: the one before it among the inputs)")
			caps := fs.String("cuda-capabilities", "", capabilitiesFlagUsage+": show, per release and platform, what their GPUs get from each package")
			return func(args []string) error {
				if len(args) == 0 {
					return usageErrorf("report takes one or more DIR (aggregate directories, or directories process-manifests left results in)")
				}
				if *out == "" {
					return usageErrorf("report needs --out DIR")
				}
				dirs, err := expandAggregateDirs(args)
				if err != nil {
					return err
				}
				r, unread, err := buildReport(e, dirs, *against, *caps)
				if err != nil {
					return err
				}
				var html, js bytes.Buffer
				if err := report.WriteHTML(&html, r); err != nil {
					return fmt.Errorf("report.html: %w", err)
				}
				if err := report.WriteJSON(&js, r); err != nil {
					return fmt.Errorf("report.json: %w", err)
				}
				if err := os.MkdirAll(*out, 0o755); err != nil {
					return err
				}
				for name, data := range map[string][]byte{"report.html": html.Bytes(), "report.json": js.Bytes()} {
					path := filepath.Join(*out, name)
					if err := atomicfile.Write(path, data); err != nil {
						return err
					}
					e.log.Info("wrote", "file", path, "bytes", len(data))
				}
				fmt.Fprintln(e.stdout, filepath.Join(*out, "report.html"))
				fmt.Fprintln(e.stdout, filepath.Join(*out, "report.json"))
				return unread
			}
		},
	}
}

// buildReport reads the aggregate directories and builds the report of
// those it can read. One it cannot is an error naming it, logged as it
// is found and returned as unread, while the report covers the others;
// err is set only when none can be read or the report cannot be built.
func buildReport(e *env, dirs []string, against, caps string) (r *report.Report, unread, err error) {
	list, err := parseCapabilities(caps)
	if err != nil {
		return nil, nil, err
	}
	var aggs []*report.Aggregate
	var errs []error
	for _, d := range dirs {
		a, err := report.ReadAggregate(d)
		if err != nil {
			err = fmt.Errorf("aggregate %s: %w", d, err)
			e.log.Error("aggregate not read; the report covers the others", "error", err)
			errs = append(errs, err)
			continue
		}
		aggs = append(aggs, a)
	}
	if len(aggs) == 0 {
		return nil, nil, errors.Join(errs...)
	}
	if r, err = report.Build(aggs, against); err != nil {
		return nil, nil, err
	}
	if err := r.AddCoverage(aggs, list); err != nil {
		return nil, nil, err
	}
	if len(errs) > 0 {
		unread = fmt.Errorf("report written without %d of %d aggregates: %w", len(errs), len(dirs), errors.Join(errs...))
	}
	return r, unread, nil
}

// diffSummary is diff's help.
const diffSummary = "Print what changed between two releases (aggregate directories) as text for a commit message or PR description " +
	"(packages, archives, outputs, SASS and PTX architectures, sonames, vendored libraries, run-time loads and their providers, NAR hashes). " +
	"OLD and NEW may also be directories process-manifests left aggregate_<version> links in (their newest release each); one such DIR alone compares its two newest releases. " +
	"The package lineage follows: new and dropped packages (and the other redist one moved to), renames, splits and merges (files and sonames that moved), licence changes, each with the evidence that decided. " +
	"OLD and NEW may be two manifest files (<redist>/redistrib_<version>.json): the lineage the manifests alone show, the redists beside them searched."

func releaseDiffCommand() command {
	return command{
		name:    "diff",
		args:    "OLD NEW | DIR",
		summary: diffSummary,
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			asJSON := fs.Bool("json", false, "print JSON instead of text (the changes of report.json, lineage included; of two manifests, the lineage alone)")
			return func(args []string) error {
				if len(args) == 2 && lineage.IsManifestFile(args[0]) && lineage.IsManifestFile(args[1]) {
					return diffManifests(e, args[0], args[1], *asJSON)
				}
				dirs, err := diffDirs(args)
				if err != nil {
					return err
				}
				var aggs [2]*report.Aggregate
				var rel [2]report.Release
				for i, d := range dirs {
					a, err := report.ReadAggregate(d)
					if err != nil {
						return fmt.Errorf("aggregate %s: %w", d, err)
					}
					aggs[i], rel[i] = a, report.ReleaseOf(a)
				}
				if aggs[0].Redist != aggs[1].Redist {
					return fmt.Errorf("diff: %s is %s but %s is %s (compare releases of one redist)", dirs[0], aggs[0].Redist, dirs[1], aggs[1].Redist)
				}
				c := report.Diff(&rel[0], &rel[1])
				c.Lineage = report.LineageOf(aggs[0], aggs[1])
				if *asJSON {
					return printJSON(e, c)
				}
				return c.WriteText(e.stdout, aggs[0].Redist)
			}
		},
	}
}

// diffManifests is diff of two manifest files: the lineage the manifests
// alone show (no trees: a split cannot be seen), with the other redists
// beside them searched for the packages that come and go.
func diffManifests(e *env, oldPath, newPath string, asJSON bool) error {
	var rel [2]*lineage.Release
	for i, p := range []string{oldPath, newPath} {
		r, err := lineage.ReadManifest(p)
		if err != nil {
			return fmt.Errorf("diff: %w", err)
		}
		rel[i] = r
	}
	if rel[0].Redist != rel[1].Redist {
		return fmt.Errorf("diff: %s is %s but %s is %s (compare releases of one redist)", oldPath, rel[0].Redist, newPath, rel[1].Redist)
	}
	others, err := lineage.OtherRedists(filepath.Dir(filepath.Dir(newPath)), rel[1].Redist)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	l := lineage.Compare(rel[0], rel[1], others)
	if asJSON {
		return printJSON(e, l)
	}
	fmt.Fprintf(e.stdout, "%s %s -> %s (manifests alone: no trees, so no splits or merges)\n", safetext.Escape(l.Redist), safetext.Escape(l.Old), safetext.Escape(l.New))
	return l.WriteText(e.stdout)
}
