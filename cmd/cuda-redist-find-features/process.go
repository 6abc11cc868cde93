package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixrun"
)

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

var redistFromURL = regexp.MustCompile(`/compute/([^/]+)/redist/?$`)

func processCommand() command {
	return command{
		name:    "process-manifests",
		args:    "URL MANIFEST_DIR",
		summary: "Build the features of every redistrib_<version>.json in MANIFEST_DIR with the Nix pipeline (archives fetched from URL) and write feature_<version>.json beside each.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			ff := addFilterFlags(fs)
			jobs := fs.Int("j", 0, "nix-build --max-jobs (0: Nix's default; --no-parallel: 1)")
			keepGoing := fs.Bool("keep-going", true, "build every entry even when some fail (nix-build --keep-going)")
			builders := fs.String("builders", "", "nix-build --builders (remote builders)")
			cleanup := fs.Bool("cleanup", false, "remove what this run added to the Nix store once the results are written")
			indexFile := fs.String("index", "", "also write the index format of all processed manifests to this file")
			redistName := fs.String("redist-name", "", "the redist's name in the index (default: from URL .../compute/<name>/redist, else MANIFEST_DIR's name)")
			nf := addNixFlags(fs)
			sandbox := fs.Bool("sandbox", true, "build in Nix's sandbox (--option sandbox true)")
			return func(args []string) error {
				if len(args) != 2 {
					return usageErrorf("process-manifests takes URL and MANIFEST_DIR, got %d arguments", len(args))
				}
				flt, err := ff.filter()
				if err != nil {
					return err
				}
				url, dir := strings.TrimSuffix(args[0], "/"), args[1]
				p := processRun{e: e, cleanup: *cleanup, indexFile: *indexFile}
				p.redist = *redistName
				if p.redist == "" {
					if m := redistFromURL.FindStringSubmatch(url); m != nil {
						p.redist = m[1]
					} else {
						abs, _ := filepath.Abs(dir)
						p.redist = filepath.Base(abs)
					}
				}
				runner, err := nf.runner(*sandbox, e)
				if err != nil {
					return err
				}
				if ff.serial() {
					runner.BuildArgs = append(runner.BuildArgs, "--max-jobs", "1")
				} else if *jobs > 0 {
					runner.BuildArgs = append(runner.BuildArgs, "--max-jobs", strconv.Itoa(*jobs))
				}
				if *keepGoing {
					runner.BuildArgs = append(runner.BuildArgs, "--keep-going")
				}
				if *builders != "" {
					runner.BuildArgs = append(runner.BuildArgs, "--builders", *builders)
				}
				p.runner = runner
				found, err := manifest.FindManifests(dir, flt)
				if err != nil {
					return err
				}
				if len(found) == 0 {
					e.log.Warn("no manifest matches", "dir", dir)
					return nil
				}
				for _, f := range found {
					p.manifests = append(p.manifests, nixrun.Manifest{RedistName: p.redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
				}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
				defer stop()
				return p.run(ctx)
			}
		},
	}
}

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

// nixFlags are the options of the commands that drive the Nix pipeline.
type nixFlags struct {
	detector, nixLib *string
	options          multiFlag
}

func addNixFlags(fs *flag.FlagSet) *nixFlags {
	nf := &nixFlags{
		detector: fs.String("detector", "", "the static binary the derivations run (default: this executable)"),
		nixLib:   fs.String("nix-lib", os.Getenv("CRFF_NIX_LIB"), "the Nix library directory (default: $CRFF_NIX_LIB, else nix/ in the working directory or a parent)"),
	}
	fs.Var(&nf.options, "nix-option", "NAME=VALUE passed to Nix as --option NAME VALUE (repeatable)")
	return nf
}

// runner checks the detector is static, finds the Nix library, and parses
// the --nix-option values.
func (nf *nixFlags) runner(sandbox bool, e *env) (*nixrun.Runner, error) {
	detector := *nf.detector
	if detector == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		detector = self
	}
	detector = mustAbs(detector)
	if err := nixrun.CheckStatic(detector); err != nil {
		return nil, err
	}
	lib, err := nixrun.FindNixLib(*nf.nixLib)
	if err != nil {
		return nil, err
	}
	r := &nixrun.Runner{NixLib: lib, Detector: detector, Stderr: e.stderr}
	if sandbox {
		r.Options = append(r.Options, [2]string{"sandbox", "true"})
	}
	for _, o := range nf.options {
		name, value, ok := strings.Cut(o, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--nix-option %q: want NAME=VALUE", o)
		}
		r.Options = append(r.Options, [2]string{name, value})
	}
	return r, nil
}

type processRun struct {
	e         *env
	runner    *nixrun.Runner
	manifests []nixrun.Manifest
	redist    string
	cleanup   bool
	indexFile string
}

func (p *processRun) run(ctx context.Context) error {
	// Parse every manifest before building anything: a broken one fails
	// here, with the parser's message, not as a Nix evaluation error.
	parsed := map[string]*manifest.Manifest{}
	for _, m := range p.manifests {
		mf, err := manifest.ReadFile(m.Path)
		if err != nil {
			return err
		}
		parsed[m.Path] = mf
	}
	entries, err := p.runner.Entries(ctx, p.manifests)
	if err != nil {
		return err
	}
	p.e.log.Info("building", "manifests", len(p.manifests), "entries", len(entries))
	var before map[string]bool
	var closure []string
	if p.cleanup {
		if closure, err = p.runner.Closure(ctx, p.manifests); err != nil {
			return err
		}
		before = map[string]bool{}
		for _, path := range closure {
			if _, err := os.Lstat(path); err == nil {
				before[path] = true
			}
		}
	}
	buildErr := p.runner.Build(ctx, p.manifests)
	if buildErr != nil {
		p.e.log.Warn("some builds failed; writing what was built", "error", buildErr)
	}

	var failed []string
	var indexes []features.Index
	for _, m := range p.manifests {
		mf := parsed[m.Path]
		var detected []features.Detected
		for _, e := range entries {
			if e.Manifest != m.Version {
				continue
			}
			f, err := features.ReadFeatures(e.OutPath)
			if err != nil {
				failed = append(failed, e.ID())
				continue
			}
			a, ok := mf.Archive(e.Package, e.Platform, e.Variant)
			if !ok {
				return fmt.Errorf("entry %s: not in manifest %s", e.ID(), m.Path)
			}
			detected = append(detected, features.Detected{Archive: a, Features: f})
		}
		features.SortDetected(detected)
		data, err := features.Encode(features.Legacy(detected))
		if err != nil {
			return err
		}
		out := filepath.Join(filepath.Dir(m.Path), "feature_"+m.Version+".json")
		if err := atomicfile.Write(out, data); err != nil {
			return err
		}
		fmt.Fprintln(p.e.stdout, out)
		p.e.log.Info("written", "file", out, "entries", len(detected))
		idx, err := features.BuildIndex(p.redist, m.Version, mf, detected)
		if err != nil {
			return err
		}
		indexes = append(indexes, idx)
	}
	if p.indexFile != "" {
		data, err := features.EncodeMerged(indexes...)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(p.indexFile, data); err != nil {
			return err
		}
		fmt.Fprintln(p.e.stdout, p.indexFile)
	}
	if p.cleanup {
		var added []string
		for _, path := range closure {
			if !before[path] {
				added = append(added, path)
			}
		}
		n := nixrun.Delete(ctx, added)
		p.e.log.Info("cleanup", "added", len(added), "deleted", n)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d entries failed: %s", len(failed), len(entries), strings.Join(failed, "; "))
	}
	if buildErr != nil {
		return errors.New("nix-build failed, though every entry's result exists")
	}
	return nil
}
