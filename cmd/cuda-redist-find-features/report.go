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

func releaseDiffCommand() command {
	return command{
		name:    "diff",
		args:    "OLD NEW | DIR",
		summary: diffSummary,
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			return func(args []string) error {
				dirs, err := diffDirs(args)
				if err != nil {
					return err
				}
				var rel [2]report.Release
				var redist [2]string
				for i, d := range dirs {
					a, err := report.ReadAggregate(d)
					if err != nil {
						return fmt.Errorf("aggregate %s: %w", d, err)
					}
					rel[i], redist[i] = report.ReleaseOf(a), a.Redist
				}
				if redist[0] != redist[1] {
					return fmt.Errorf("diff: %s is %s but %s is %s (compare releases of one redist)", dirs[0], redist[0], dirs[1], redist[1])
				}
				return report.Diff(&rel[0], &rel[1]).WriteText(e.stdout, redist[0])
			}
		},
	}
}
