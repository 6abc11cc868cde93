package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// The results process-manifests leaves for the other commands: per built
// manifest, aggregate_<version>, a symlink to the manifest's aggregate
// directory in the Nix store (feature_<version>.json, index.json,
// detail.json, buildRedist.json), registered as a GC root (with --store,
// a local copy of that directory). It lies beside the manifest, or in
// --out. report, print-buildredist, print-dependencies and diff take such
// a directory (a "results directory") as well as an aggregate directory.
const aggregateLinkPrefix = "aggregate_"

// aggregateLink is where the aggregate of the manifest at manifestPath
// goes: in linkDir when set, else beside the manifest.
func aggregateLink(linkDir, manifestPath, version string) string {
	dir := linkDir
	if dir == "" {
		dir = filepath.Dir(manifestPath)
	}
	return filepath.Join(dir, aggregateLinkPrefix+version)
}

// keepAggregate roots the manifest's aggregate under its link and prints
// the link. With --store the aggregate stays in that store: its files are
// copied into a directory of the link's name instead.
func (p *processRun) keepAggregate(ctx context.Context, m nixdriver.ManifestOutcome) error {
	link := aggregateLink(p.linkDir, m.Path, m.Version)
	keep := p.runner.KeepOutput
	if p.runner.Store != "" {
		keep = p.runner.CopyOutput
	}
	changed, err := keep(ctx, m.Aggregate.Out, link)
	if err != nil {
		return err
	}
	p.e.log.Debug("aggregate", "link", link, "out", m.Aggregate.Out, "changed", changed)
	safetext.Fprintf(p.e.stdout, "%s\n", link)
	return nil
}

// isAggregateDir says whether dir holds an aggregate's index.json.
func isAggregateDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "index.json"))
	return err == nil && fi.Mode().IsRegular()
}

// aggregateDirs resolves a command's DIR argument: an aggregate directory
// is itself; a results directory gives its aggregate_<version> entries,
// oldest version first.
func aggregateDirs(arg string) ([]string, error) {
	if isAggregateDir(arg) {
		return []string{arg}, nil
	}
	entries, err := os.ReadDir(arg)
	if err != nil {
		return nil, err
	}
	byVersion := map[string]string{}
	var versions []string
	for _, e := range entries {
		v, ok := strings.CutPrefix(e.Name(), aggregateLinkPrefix)
		if !ok {
			continue
		}
		path := filepath.Join(arg, e.Name())
		if !isAggregateDir(path) {
			// Not skipped: the newest release would silently be another.
			return nil, fmt.Errorf("%s is no aggregate directory (a link to a store path that is gone?); run process-manifests again, or remove it", path)
		}
		byVersion[v] = path
		versions = append(versions, v)
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("%s: neither an aggregate directory (no index.json) nor a directory process-manifests left results in (no %s<version>); run `process-manifests URL %s` first", arg, aggregateLinkPrefix, arg)
	}
	manifest.SortVersions(versions)
	dirs := make([]string, len(versions))
	for i, v := range versions {
		dirs[i] = byVersion[v]
	}
	return dirs, nil
}

// oneAggregateDir is the aggregate directory a command that reads one
// release takes from arg: arg itself, or in a results directory the
// aggregate of version (the newest when version is "").
func oneAggregateDir(e *env, arg, version string) (string, error) {
	dirs, err := aggregateDirs(arg)
	if err != nil {
		return "", err
	}
	if version == "" {
		if len(dirs) > 1 {
			e.log.Info("reading the newest release; --version picks another", "dir", dirs[len(dirs)-1], "releases", len(dirs))
		}
		return dirs[len(dirs)-1], nil
	}
	for _, d := range dirs {
		if filepath.Base(d) == aggregateLinkPrefix+version {
			return d, nil
		}
	}
	return "", usageErrorf("%s: no aggregate of version %s (there are: %s)", arg, version, strings.Join(versionsOf(dirs), ", "))
}

func versionsOf(dirs []string) []string {
	var vs []string
	for _, d := range dirs {
		vs = append(vs, strings.TrimPrefix(filepath.Base(d), aggregateLinkPrefix))
	}
	return vs
}

// aggregateFile is FILE, or the file name of the aggregate directory DIR
// names (itself, or one release of a results directory, see
// oneAggregateDir).
func aggregateFile(e *env, arg, name, version string) (string, error) {
	path, err := findAggregateFile(e, arg, name, version)
	if err == nil {
		e.log.Debug("reading", "file", path)
	}
	return path, err
}

func findAggregateFile(e *env, arg, name, version string) (string, error) {
	fi, err := os.Stat(arg)
	if err != nil || !fi.IsDir() {
		if version != "" {
			return "", usageErrorf("--version picks a release of a directory; %s is a file", arg)
		}
		return arg, nil
	}
	// A directory holding the file itself is an aggregate directory
	// (or a copy of its one file).
	if fi, err := os.Stat(filepath.Join(arg, name)); err == nil && fi.Mode().IsRegular() {
		if version != "" {
			return "", usageErrorf("--version picks a release of a directory process-manifests left results in; %s is one release's directory", arg)
		}
		return filepath.Join(arg, name), nil
	}
	dir, err := oneAggregateDir(e, arg, version)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// diffDirs are diff's OLD and NEW aggregate directories: from two
// arguments, each one's (newest) release; from one results directory,
// its two newest releases.
func diffDirs(args []string) ([2]string, error) {
	var dirs [2]string
	switch len(args) {
	case 1:
		all, err := aggregateDirs(args[0])
		if err != nil {
			return dirs, err
		}
		if len(all) < 2 {
			return dirs, usageErrorf("diff %s: one release there; diff takes OLD and NEW, or a directory with two releases or more", args[0])
		}
		return [2]string{all[len(all)-2], all[len(all)-1]}, nil
	case 2:
		for i, arg := range args {
			all, err := aggregateDirs(arg)
			if err != nil {
				return dirs, err
			}
			dirs[i] = all[len(all)-1]
		}
		return dirs, nil
	}
	return dirs, usageErrorf("diff takes OLD and NEW (aggregate directories of one redist), or one directory process-manifests left results in; %s", given(args))
}

// expandAggregateDirs is every aggregate directory the arguments name
// (see aggregateDirs), in their order.
func expandAggregateDirs(args []string) ([]string, error) {
	var dirs []string
	for _, arg := range args {
		ds, err := aggregateDirs(arg)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, ds...)
	}
	return dirs, nil
}
