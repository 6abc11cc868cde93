package main

import (
	"bytes"
	"fmt"
	flag "github.com/spf13/pflag"
	"os"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report"
)

func reportCommand() command {
	return command{
		name:    "report",
		args:    "FEATURES_DIR...",
		summary: "Write report.html and report.json of aggregate directories of one redist: outputs, GPU coverage, soname graph, changes.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			out := fs.String("out", "", "directory to write report.html and report.json into (required)")
			against := fs.String("against", "", "compare the newest release with this version (default: the one before it among the inputs)")
			caps := fs.String("cuda-capabilities", "", capabilitiesFlagUsage+": show, per release and platform, what their GPUs get from each package")
			return func(args []string) error {
				if len(args) == 0 {
					return usageErrorf("report takes one or more FEATURES_DIR (aggregate directories)")
				}
				if *out == "" {
					return usageErrorf("report needs --out DIR")
				}
				r, err := buildReport(args, *against, *caps)
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
				return nil
			}
		},
	}
}

func buildReport(dirs []string, against, caps string) (*report.Report, error) {
	list, err := parseCapabilities(caps)
	if err != nil {
		return nil, err
	}
	var aggs []*report.Aggregate
	for _, d := range dirs {
		a, err := report.ReadAggregate(d)
		if err != nil {
			return nil, fmt.Errorf("aggregate %s: %w", d, err)
		}
		aggs = append(aggs, a)
	}
	r, err := report.Build(aggs, against)
	if err != nil {
		return nil, err
	}
	return r, r.AddCoverage(aggs, list)
}

func releaseDiffCommand() command {
	return command{
		name:    "diff",
		args:    "OLD NEW",
		summary: "Print what changed between two releases (aggregate directories) as text for a commit message or PR description.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			return func(args []string) error {
				if len(args) != 2 {
					return usageErrorf("diff takes OLD and NEW (aggregate directories of one redist)")
				}
				var rel [2]report.Release
				var redist [2]string
				for i, d := range args {
					a, err := report.ReadAggregate(d)
					if err != nil {
						return fmt.Errorf("aggregate %s: %w", d, err)
					}
					rel[i], redist[i] = report.ReleaseOf(a), a.Redist
				}
				if redist[0] != redist[1] {
					return fmt.Errorf("diff: %s is %s but %s is %s (compare releases of one redist)", args[0], redist[0], args[1], redist[1])
				}
				return report.Diff(&rel[0], &rel[1]).WriteText(e.stdout, redist[0])
			}
		},
	}
}
