package main

import (
	"context"
	"errors"
	"fmt"
	flag "github.com/spf13/pflag"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
func (m *multiFlag) Type() string       { return "stringArray" }

var redistFromURL = regexp.MustCompile(`/compute/([^/]+)/redist/?$`)

func processCommand() command {
	return command{
		name:    "process-manifests",
		args:    "URL MANIFEST_DIR",
		summary: "Build the features of every redistrib_<version>.json in MANIFEST_DIR with the Nix pipeline (archives fetched from URL) and write feature_<version>.json beside each.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			ff := addFilterFlags(fs)
			jobs := fs.IntP("max-jobs", "j", -1, "Nix's --max-jobs: builds run locally at once (-1: Nix's default; 0: none, everything on --builders; --no-parallel: 1)")
			remoteOnly := fs.Bool("remote-only", false, "build nothing locally (-j 0): every derivation goes to --builders")
			keepGoing := fs.Bool("keep-going", true, "build every entry even when some fail (Nix's --keep-going)")
			builders := fs.String("builders", "", "Nix's --builders (remote builders), e.g. 'ssh-ng://user@host x86_64-linux'")
			store := fs.String("store", "", "build in this Nix store (e.g. ssh-ng://user@host) and keep archives and unpacked trees there; evaluation stays local and only the result files come back")
			partial := fs.Bool("partial", false, "when entries fail, write what did build to feature_<version>.partial.json (the complete feature_<version>.json is never replaced by a partial one)")
			cleanup := fs.Bool("cleanup", false, "remove what this run added to the Nix store once the results are written")
			indexFile := fs.String("index", "", "also write the index format of all processed manifests to this file")
			redistName := fs.String("redist-name", "", "the redist's name in the index (default: from URL .../compute/<name>/redist, else MANIFEST_DIR's name)")
			nf := addNixFlags(fs)
			sandbox := fs.Bool("sandbox", true, "build in Nix's sandbox (--option sandbox true)")
			return func(args []string) error {
				if err := wantArgs("process-manifests", args, 2, "URL and MANIFEST_DIR"); err != nil {
					return err
				}
				flt, err := ff.filter()
				if err != nil {
					return err
				}
				url, dir := strings.TrimSuffix(args[0], "/"), args[1]
				p := processRun{e: e, cleanup: *cleanup, partial: *partial, indexFile: *indexFile}
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
				switch {
				case *remoteOnly:
					runner.BuildArgs = append(runner.BuildArgs, "--max-jobs", "0")
				case ff.serial():
					runner.BuildArgs = append(runner.BuildArgs, "--max-jobs", "1")
				case *jobs >= 0:
					runner.BuildArgs = append(runner.BuildArgs, "--max-jobs", strconv.Itoa(*jobs))
				}
				if *keepGoing {
					runner.BuildArgs = append(runner.BuildArgs, "--keep-going")
				}
				if *builders != "" {
					runner.BuildArgs = append(runner.BuildArgs, "--builders", *builders)
				}
				if *store != "" {
					if *cleanup {
						return usageErrorf("--cleanup with --store: the run adds nothing to the local store but derivations; clean the remote store there")
					}
					runner.Store = *store
				}
				p.runner = runner
				found, err := manifest.FindManifests(dir, flt)
				if err != nil {
					return err
				}
				if len(found) == 0 {
					return fmt.Errorf("no redistrib_<version>.json in %s matches %s", dir, ff.describe())
				}
				for _, f := range found {
					p.manifests = append(p.manifests, nixdriver.Manifest{RedistName: p.redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
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
		nixLib:   fs.String("nix-lib", "", "the Nix library directory (default: $CRFF_NIX_LIB, else ../share/cuda-redist-find-features/nix beside the executable, else nix/ in the working directory or a parent)"),
	}
	fs.Var(&nf.options, "nix-option", "NAME=VALUE passed to Nix as --option NAME VALUE (repeatable)")
	return nf
}

// runner checks the detector is static, finds the Nix library, and parses
// the --nix-option values.
func (nf *nixFlags) runner(sandbox bool, e *env) (*nixdriver.Runner, error) {
	detector := *nf.detector
	if detector == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		detector = self
	}
	detector = mustAbs(detector)
	if err := nixdriver.CheckStatic(detector); err != nil {
		return nil, err
	}
	nixLib := *nf.nixLib
	if nixLib == "" {
		// Read here, not as the flag's default: help stays the same everywhere.
		nixLib = os.Getenv("CRFF_NIX_LIB")
	}
	lib, err := nixdriver.FindNixLib(nixLib)
	if err != nil {
		return nil, err
	}
	r := &nixdriver.Runner{NixLib: lib, Detector: detector, Stderr: e.stderr}
	switch {
	case e.quiet:
		// Nix's own "building ..." lines; its errors still show.
		r.BuildArgs = append(r.BuildArgs, "--quiet")
	case isTerminal(e.stderr):
		// A status line from Nix's structured log.
		p := newNixProgress(e.stderr)
		r.Stderr = p
		r.BuildArgs = append(r.BuildArgs, "--log-format", "internal-json")
		e.stdout = p.clearing(e.stdout)
		e.atExit = append(e.atExit, p.finish)
	default:
		// A log file or a pipe: one line per event, from the same log.
		p := newNixEventLines(e.stderr)
		r.Stderr = p
		r.BuildArgs = append(r.BuildArgs, "--log-format", "internal-json")
		e.atExit = append(e.atExit, p.finish)
	}
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
	runner    *nixdriver.Runner
	manifests []nixdriver.Manifest
	redist    string
	cleanup   bool
	partial   bool
	indexFile string
}

// run validates the manifests with the Go parser (a bad one fails alone),
// instantiates the pipeline once over the good ones, adds local archives
// to the store, builds the aggregate derivations (and the merged index)
// with one Nix command, and copies their files out. A manifest whose
// aggregate did not build keeps its old feature file; its failed entries
// are named (and with --partial, what did build is written to
// feature_<version>.partial.json).
func (p *processRun) run(ctx context.Context) error {
	var problems []string
	var good []nixdriver.Manifest
	parsed := map[string]*manifest.Manifest{}
	for _, m := range p.manifests {
		mf, err := manifest.ReadFile(m.Path)
		if err != nil {
			p.e.log.Error("manifest refused; the others are still processed", "error", err)
			problems = append(problems, err.Error())
			continue
		}
		parsed[m.Path] = mf
		good = append(good, m)
	}
	if len(good) == 0 {
		return fmt.Errorf("no manifest could be processed: %s", strings.Join(problems, "; "))
	}
	indexName := ""
	if p.indexFile != "" {
		indexName = p.redist
	}
	plan, err := p.runner.Instantiate(ctx, good, indexName)
	if err != nil {
		return err
	}
	targets := []string{}
	for _, m := range plan.Manifests {
		targets = append(targets, m.Aggregate.Drv)
	}
	if plan.Index != nil {
		targets = append(targets, plan.Index.Drv)
	}
	p.e.log.Info("building", "manifests", len(plan.Manifests), "entries", len(plan.Entries()))

	var closure []string
	before := map[string]bool{}
	if p.cleanup {
		if closure, err = nixdriver.Closure(ctx, targets); err != nil {
			return err
		}
		for _, path := range closure {
			if _, err := os.Lstat(path); err == nil {
				before[path] = true
			}
		}
	}
	if err := p.runner.AddLocalArchives(ctx, plan, parsed, p.e.log); err != nil {
		return err
	}
	roots, err := os.MkdirTemp("", "crff-gc-roots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(roots)
	p.runner.RootDir = roots
	buildErr := p.runner.Realise(ctx, targets)
	if buildErr != nil {
		p.e.log.Warn("some builds failed", "error", buildErr)
	}

	outs := []string{}
	for _, m := range plan.Manifests {
		outs = append(outs, m.Aggregate.Out)
		for _, e := range m.Entries {
			outs = append(outs, e.OutPath)
		}
	}
	if plan.Index != nil {
		outs = append(outs, plan.Index.Out)
	}
	valid, err := p.runner.Valid(ctx, outs)
	if err != nil {
		return err
	}
	for _, m := range plan.Manifests {
		dir := filepath.Dir(m.Path)
		final := filepath.Join(dir, "feature_"+m.Version+".json")
		if valid[m.Aggregate.Out] {
			if err := p.copyOut(ctx, m.Aggregate.Out+"/feature_"+m.Version+".json", final); err != nil {
				return err
			}
			fmt.Fprintln(p.e.stdout, final)
			continue
		}
		var failed []string
		var built []nixdriver.Entry
		for _, e := range m.Entries {
			if valid[e.OutPath] {
				built = append(built, e)
			} else {
				failed = append(failed, e.ID())
			}
		}
		msg := fmt.Sprintf("manifest %s: %d of %d entries failed: %s; %s left as it was", m.Path, len(failed), len(m.Entries), strings.Join(failed, ", "), final)
		if len(failed) == 0 {
			msg = fmt.Sprintf("manifest %s: its aggregate derivation %s failed; %s left as it was", m.Path, m.Aggregate.Drv, final)
		}
		problems = append(problems, msg)
		if p.partial {
			out := filepath.Join(dir, "feature_"+m.Version+".partial.json")
			if err := writePartial(ctx, p.runner, out, parsed[m.Path], built); err != nil {
				return err
			}
			fmt.Fprintln(p.e.stdout, out)
			fmt.Fprintf(p.e.stderr, "%s: PARTIAL results (%d of %d entries; missing: %s)\n", out, len(built), len(m.Entries), strings.Join(failed, ", "))
		}
	}
	if p.indexFile != "" {
		switch {
		case len(good) < len(p.manifests):
			problems = append(problems, fmt.Sprintf("index %s not written: not every manifest could be processed", p.indexFile))
		case plan.Index == nil || !valid[plan.Index.Out]:
			problems = append(problems, fmt.Sprintf("index %s not written: its derivation did not build", p.indexFile))
		default:
			if err := p.copyOut(ctx, plan.Index.Out, p.indexFile); err != nil {
				return err
			}
			fmt.Fprintln(p.e.stdout, p.indexFile)
		}
	}
	if p.cleanup {
		if err := os.RemoveAll(roots); err != nil { // the roots would keep everything
			return err
		}
		var added []string
		for _, path := range closure {
			if !before[path] {
				added = append(added, path)
			}
		}
		n := nixdriver.Delete(ctx, added)
		p.e.log.Info("cleanup", "added", len(added), "deleted", n)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	if buildErr != nil {
		return errors.New("the Nix build failed, though every result exists")
	}
	return nil
}

// copyOut replaces dst atomically with the store file src (read from the
// build's store: local, or --store).
func (p *processRun) copyOut(ctx context.Context, src, dst string) error {
	data, err := p.runner.ReadFile(ctx, src)
	if err != nil {
		return fmt.Errorf("copy result: %w", err)
	}
	return atomicfile.Write(dst, data)
}

// writePartial writes the legacy feature file of the entries that built,
// with the aggregate builder's code, to out.
func writePartial(ctx context.Context, r *nixdriver.Runner, out string, m *manifest.Manifest, built []nixdriver.Entry) error {
	var detected []aggregate.Detected
	for _, e := range built {
		f, err := readFeatures(ctx, r, e.OutPath)
		if err != nil {
			return fmt.Errorf("entry %s: %w", e.ID(), err)
		}
		a, ok := m.Archive(e.Package, e.Platform, e.Variant)
		if !ok {
			return fmt.Errorf("entry %s: not in manifest %s", e.ID(), m.Source)
		}
		detected = append(detected, aggregate.Detected{Archive: a, Features: f})
	}
	data, err := aggregate.EncodeLegacy(detected)
	if err != nil {
		return err
	}
	return atomicfile.Write(out, data)
}

// readFeatures reads a detection from the build's store. With --store it
// is read back into a temporary file first, so that features.ReadFeatures
// (and its checks) apply to it unchanged.
func readFeatures(ctx context.Context, r *nixdriver.Runner, path string) (*features.Features, error) {
	if r.Store == "" {
		return features.ReadFeatures(path)
	}
	data, err := r.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "crff-features-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return features.ReadFeatures(tmp.Name())
}
