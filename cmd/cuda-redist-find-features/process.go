package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
func (m *multiFlag) Type() string       { return "stringArray" }

// processFlags are process-manifests' options.
type processFlags struct {
	filters                   *filterFlags
	nix                       *nixFlags
	jobs                      *int
	remoteOnly, keepGoing     *bool
	builders, store           *string
	partial, cleanup, sandbox *bool
	indexFile, redistName     *string
	linkDir                   *string
	pinUnpacked, verifyPinned *bool
}

// processSummary is process-manifests' help.
const processSummary = "Build the features of every redistrib_<version>.json in MANIFEST_DIR with the Nix pipeline (archives fetched from URL) and write feature_<version>.json beside each. " +
	"Each built manifest's aggregate directory (feature_<version>.json, index.json, detail.json, buildRedist.json) stays in the Nix store, " +
	"GC-rooted by the link aggregate_<version> beside the manifest (or in --out; with --store, aggregate_<version> is a copy of the directory), which report, print-buildredist, print-dependencies and diff read. " +
	"Stdout lists the files and links written; a run that changes nothing leaves them as they were, modification times included. " +
	"Archives of a file:// URL are added to the Nix store as they are (a symlink through its target); one whose sha256 does not match the manifest fails its entry with a warning that says so, and a later run with the right file builds it."

func processCommand() command {
	return command{
		name:    "process-manifests",
		args:    "URL MANIFEST_DIR",
		summary: processSummary,
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			pf := processFlags{filters: addFilterFlags(fs)}
			pf.jobs = fs.IntP("max-jobs", "j", -1, "Nix's --max-jobs: builds run locally at once (-1: Nix's default; 0: none, everything on --builders; --no-parallel: 1)")
			pf.remoteOnly = fs.Bool("remote-only", false, "build nothing locally (-j 0): every derivation goes to --builders")
			pf.keepGoing = fs.Bool("keep-going", true, "build every entry even when some fail (Nix's --keep-going)")
			pf.builders = fs.String("builders", "", "Nix's --builders (remote builders), e.g. 'ssh-ng://user@host x86_64-linux'")
			pf.store = fs.String("store", "", "build in this Nix store (e.g. ssh-ng://user@host) and keep archives and unpacked trees there; evaluation stays local and only the result files come back")
			pf.partial = fs.Bool("partial", false, "when entries fail, write what did build to feature_<version>.partial.json (the complete feature_<version>.json is never replaced by a partial one)")
			pf.cleanup = fs.Bool("cleanup", false, "remove what this run added to the Nix store once the results are written")
			pf.indexFile = fs.String("index", "", "also write the index format of all processed manifests to this file")
			pf.redistName = fs.String("redist-name", "", "the redist's name in the index (default: from URL .../compute/<name>/redist, else MANIFEST_DIR's name)")
			pf.linkDir = fs.String("out", "", "where the aggregate_<version> links go, the GC-rooted aggregate directories report, print-* and diff read (default: MANIFEST_DIR; one directory per redist)")
			pf.pinUnpacked = fs.Bool("pin-unpacked", true, "read the unpacked trees' NAR hashes from "+manifest.UnpackedHashesFile+" beside the manifests (unpacking those archives as fixed-output derivations, once each record is known to be its archive's unpack) and record there those of the trees this run unpacked (a directory that cannot be written: one warning)")
			pf.verifyPinned = fs.Bool("verify-pinned", false, verifyPinnedHelp)
			pf.nix = addNixFlags(fs)
			pf.sandbox = fs.Bool("sandbox", true, "build in Nix's sandbox (--option sandbox true)")
			return func(args []string) error {
				if err := wantArgs("process-manifests", args, 2, "URL and MANIFEST_DIR"); err != nil {
					return err
				}
				p, err := pf.processRun(e, strings.TrimSuffix(args[0], "/"), args[1])
				if err != nil {
					return err
				}
				return p.run(e.context())
			}
		},
	}
}

// processRun checks the options and finds the manifests of dir.
func (pf *processFlags) processRun(e *env, url, dir string) (*processRun, error) {
	if *pf.store != "" && *pf.cleanup {
		return nil, usageErrorf("--cleanup with --store: the run adds nothing to the local store but derivations; clean the remote store there")
	}
	flt, err := pf.filters.filter()
	if err != nil {
		return nil, err
	}
	if url, err = archiveURL("URL", url); err != nil {
		return nil, err
	}
	p := &processRun{e: e, cleanup: *pf.cleanup, partial: *pf.partial, indexFile: *pf.indexFile, redist: *pf.redistName, linkDir: *pf.linkDir,
		maxArchives: *pf.nix.maxArchives}
	if p.redist == "" {
		p.redist = manifest.RedistName(url, dir)
	}
	if p.manifests, err = pf.findManifests(dir, flt, p.redist, url); err != nil {
		return nil, err
	}
	if p.hashes, err = readRecords(*pf.pinUnpacked, p.manifests); err != nil {
		return nil, err
	}
	p.verifyPinned = *pf.verifyPinned
	// The arguments first, then the environment (program, Nix library).
	if p.runner, err = pf.newRunner(e); err != nil {
		return nil, err
	}
	return p, nil
}

// findManifests are the manifests of dir that the filters select, as
// the Nix driver takes them.
func (pf *processFlags) findManifests(dir string, flt manifest.Filter, redist, url string) ([]nixdriver.Manifest, error) {
	found, err := manifest.FindManifests(dir, flt)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, noManifestError([]string{dir}, pf.filters)
	}
	var out []nixdriver.Manifest
	for _, f := range found {
		out = append(out, nixdriver.Manifest{RedistName: redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
	}
	return out, nil
}

// newRunner is the Nix runner of the run's options.
func (pf *processFlags) newRunner(e *env) (*nixdriver.Runner, error) {
	runner, err := pf.nix.runner(*pf.sandbox, true, e)
	if err != nil {
		return nil, err
	}
	runner.SetBuildOptions(nixdriver.BuildOptions{MaxJobs: pf.maxJobs(), KeepGoing: *pf.keepGoing, Builders: *pf.builders})
	runner.Store = *pf.store
	return runner, nil
}

// maxJobs is --max-jobs as --remote-only and --no-parallel set it.
func (pf *processFlags) maxJobs() int {
	switch {
	case *pf.remoteOnly:
		return 0
	case pf.filters.serial():
		return 1
	}
	return *pf.jobs
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
	nixLib, detectorProgram, aggregateProgram *string
	options                                   multiFlag
	offline                                   *bool
	maxArchives                               *int
}

func addNixFlags(fs *flag.FlagSet) *nixFlags {
	nf := &nixFlags{
		detectorProgram:  fs.String("detector-program", "", "the static cuda-redist-detector, builder of the unpack and detect derivations (default: the one installed beside this executable)"),
		aggregateProgram: fs.String("aggregate-program", "", "the static cuda-redist-aggregate, builder of the aggregate, buildRedist and merged-index derivations (default: the one installed beside this executable)"),
		nixLib:           fs.String("nix-lib", "", "the Nix library directory (default: $CRFF_NIX_LIB, else ../share/cuda-redist-find-features/nix beside the executable, else nix/ in the working directory or a parent)"),
	}
	fs.Var(&nf.options, "nix-option", "NAME=VALUE passed to Nix as --option NAME VALUE (repeatable)")
	nf.offline = fs.Bool("offline", false, offlineHelp)
	nf.maxArchives = fs.Int("max-archives", nixdriver.DefaultMaxArchives, "refuse, alone and by name, a manifest that lists more archives than this (0: no bound; NVIDIA's largest lists 159)")
	return nf
}

// attachProgress chooses how Nix's progress reaches the user: Nix's own
// quiet output, a status line on a terminal, or one line per event.
func attachProgress(r *nixdriver.Runner, e *env) {
	switch {
	case e.quiet:
		// Nix's own "building ..." lines; its errors still show. Copied
		// through a pipe rather than handing Nix our stderr, so that a
		// reader of stderr that went away cannot end Nix either (see
		// stderrFor), and line by line made safe, Nix's colours kept.
		lw := safetext.NewLineWriter(e.terminal)
		lw.Skip = nixlog.IsRetryNotice
		r.Stderr = lw
		e.atExit = append(e.atExit, func() { lw.Flush() })
		// --no-build-output: nor the builders' own log lines (the
		// detector's "unpacked", "detected"; in `nix log`); a failed
		// build's error still quotes its last ones.
		r.BuildArgs = append(r.BuildArgs, "--quiet", "--no-build-output")
	case isTerminal(e.terminal):
		// A status line from Nix's structured log.
		p := newNixProgress(e.terminal)
		ctx := e.context()
		p.stopped = func() bool { return ctx.Err() != nil }
		r.Stderr = p
		r.SetRoles = p.setRoles
		e.buildFailure = p.failureOf
		r.BuildArgs = append(r.BuildArgs, "--log-format", "internal-json")
		e.stdout = p.clearing(e.stdout)
		e.logAround(p)
		e.atExit = append(e.atExit, p.finish)
	default:
		// A log file or a pipe: one line per event, from the same log.
		p := newNixEventLines(e.terminal)
		ctx := e.context()
		p.stopped = func() bool { return ctx.Err() != nil }
		r.Stderr = p
		r.SetRoles = p.setRoles
		e.buildFailure = p.failureOf
		r.BuildArgs = append(r.BuildArgs, "--log-format", "internal-json")
		e.atExit = append(e.atExit, p.finish)
	}
}

// logAround makes the logger take the status line away before each
// record, so that a warning starts a line of its own instead of being
// glued to the status line; the next event shows the status again.
func (e *env) logAround(p *nixProgress) {
	e.log = newLogger(p.clearing(e.stderr), e.logLevel)
}

// runner finds the Nix library and, when the run builds derivations
// (withBuilders), the builders (static), and parses the --nix-option
// values.
func (nf *nixFlags) runner(sandbox, withBuilders bool, e *env) (*nixdriver.Runner, error) {
	nixLib := *nf.nixLib
	if nixLib == "" {
		// Read here, not as the flag's default: help stays the same everywhere.
		nixLib = os.Getenv("CRFF_NIX_LIB")
	}
	lib, err := nixdriver.FindNixLib(nixLib)
	if err != nil {
		return nil, err
	}
	r := &nixdriver.Runner{NixLib: lib, Stderr: e.stderr}
	if withBuilders {
		if err := nf.builders(r); err != nil {
			return nil, err
		}
	}
	attachProgress(r, e)
	if r.Options, err = nf.nixOptions(sandbox); err != nil {
		return nil, err
	}
	r.Log = e.log
	return r, nil
}

// detectorName and aggregateName are the builder programs' executables,
// installed beside the CLI.
const (
	detectorName  = "cuda-redist-detector"
	aggregateName = "cuda-redist-aggregate"
)

// builders sets r's detector and aggregate builder: their flags, else
// the ones installed beside this executable. The CLI builds none of the
// pipeline's derivations itself.
func (nf *nixFlags) builders(r *nixdriver.Runner) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if r.DetectorProgram, err = findBeside(*nf.detectorProgram, "--detector-program", detectorName, self); err != nil {
		return err
	}
	r.AggregateProgram, err = findBeside(*nf.aggregateProgram, "--aggregate-program", aggregateName, self)
	return err
}

// findBeside is the builder program name of some derivations: flag's
// value when given (it must be static), else the program name installed
// beside self, the CLI's executable; an error saying how to install it
// when there is none.
func findBeside(flag, flagName, name, self string) (string, error) {
	if flag != "" {
		p, err := filepath.EvalSymlinks(mustAbs(flag))
		if err != nil {
			return "", fmt.Errorf("%s: %w", flagName, err)
		}
		return p, nixdriver.CheckStatic(p)
	}
	self, err := filepath.EvalSymlinks(self)
	if err != nil {
		return "", err
	}
	beside := filepath.Join(filepath.Dir(self), name)
	if st, err := os.Stat(beside); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not installed beside %s (nor given with %s): the pipeline's derivations are built by it; install the three programs together: %s", name, self, flagName, nixdriver.InstallHint)
	}
	// The file itself: Nix copies the path it is given into the store,
	// and a symlink (the package links it beside the CLI) would be copied
	// as a link.
	beside, err = filepath.EvalSymlinks(beside)
	if err != nil {
		return "", err
	}
	if err := nixdriver.CheckStatic(beside); err != nil {
		return "", fmt.Errorf("%s beside %s: %w (pass %s)", name, self, err, flagName)
	}
	return beside, nil
}

type processRun struct {
	e         *env
	runner    *nixdriver.Runner
	manifests []nixdriver.Manifest
	redist    string
	cleanup   bool
	partial   bool
	indexFile string
	linkDir   string // --out: where the aggregate links go ("": beside the manifests)
	// maxArchives: a manifest that lists more is refused (--max-archives).
	maxArchives int
	// hashes are the unpacked-hashes.json files of the manifests, by path
	// (nil with --pin-unpacked=false).
	hashes map[string]*manifest.UnpackedHashes
	// verifyPinned: --verify-pinned.
	verifyPinned bool
	// warnedUnwritable: the records already warned about (writeChanged).
	warnedUnwritable map[string]bool
}

// run builds the manifests' aggregates with Nix and copies their files
// out. A manifest whose aggregate did not build keeps its old feature
// file; its failed entries are named (and with --partial, what did build
// is written to feature_<version>.partial.json).
func (p *processRun) run(ctx context.Context) error {
	opts := nixdriver.ProcessOptions{Cleanup: p.cleanup, Log: p.e.log}
	if p.indexFile != "" {
		opts.IndexName = p.redist
	}
	valid, err := p.validateAndPin(ctx)
	if err != nil {
		return err
	}
	out, err := p.runner.Process(ctx, valid, opts)
	if err != nil {
		return err
	}
	defer out.Close()
	problems, err := p.writeResults(ctx, out)
	if err != nil {
		return err
	}
	if err := p.recordUnpackedHashes(ctx, out); err != nil {
		return err
	}
	if p.cleanup {
		added, deleted, err := out.Cleanup(ctx)
		if err != nil {
			return err
		}
		p.e.log.Info("cleanup", "added", added, "deleted", deleted)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	if out.BuildErr != nil {
		return errors.New("the Nix build failed, though every result exists")
	}
	return nil
}

// validateAndPin validates the manifests and pins their unpacks (pinFirst).
func (p *processRun) validateAndPin(ctx context.Context) (*nixdriver.Validated, error) {
	valid, err := nixdriver.Validate(p.manifests, p.maxArchives, p.e.log)
	if err != nil {
		return nil, err
	}
	if p.hashes == nil {
		return valid, nil
	}
	p.warnedUnwritable = map[string]bool{}
	// A record of format 1 is rewritten now, before anything reads it.
	p.writeChanged(nil)
	valid.Pin(recordOf(p.hashes))
	if err := checkPins(ctx, p.runner, valid, p.verifyPinned, p.previousTree, p.e.log); err != nil {
		return nil, err
	}
	if len(valid.Good) == 0 {
		return valid, nil
	}
	return valid, p.pinFirst(ctx, valid)
}

// writeResults writes each manifest's feature file and the index, and
// returns the problems to report: refused manifests, failed builds.
func (p *processRun) writeResults(ctx context.Context, out *nixdriver.Outcome) ([]string, error) {
	var problems []string
	for _, r := range out.Refused {
		problems = append(problems, r.Err.Error())
	}
	for _, m := range out.Manifests {
		if ctx.Err() != nil {
			// Interrupted: the files written so far are complete.
			return nil, context.Cause(ctx)
		}
		problem, err := p.writeManifest(ctx, out, m)
		if err != nil {
			return nil, err
		}
		problems = appendNonEmpty(problems, problem)
		pins, err := p.pinProblems(ctx, out, m)
		if err != nil {
			return nil, err
		}
		problems = append(problems, pins...)
	}
	problem, err := p.writeIndex(ctx, out)
	return appendNonEmpty(problems, problem), err
}

func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(list, s)
}

// writeManifest copies a built manifest's feature file beside it; for
// one that did not build it returns the problem to report (and with
// --partial writes what did build).
func (p *processRun) writeManifest(ctx context.Context, out *nixdriver.Outcome, m nixdriver.ManifestOutcome) (string, error) {
	dir := filepath.Dir(m.Path)
	final := filepath.Join(dir, "feature_"+m.Version+".json")
	if m.Built {
		if err := p.copyOut(ctx, out, m.FeatureFile(), final); err != nil {
			return "", err
		}
		return "", p.keepAggregate(ctx, m)
	}
	failed := make([]string, len(m.FailedEntries))
	for i, e := range m.FailedEntries {
		failed[i] = e.ID()
	}
	// A few names: the causes are in the summary of the build above.
	problem := fmt.Sprintf("manifest %s: %d of %d entries failed: %s; %s left as it was", m.Path, len(failed), len(m.Entries), someNames(failed), final)
	if len(failed) == 0 {
		problem = fmt.Sprintf("manifest %s: its aggregate derivation %s failed; %s left as it was", m.Path, m.Aggregate.Drv, final)
	}
	if !p.partial {
		return problem, nil
	}
	partial := filepath.Join(dir, "feature_"+m.Version+".partial.json")
	data, err := out.PartialFeatures(ctx, m)
	if err != nil {
		return "", err
	}
	if _, err := atomicfile.WriteIfChanged(partial, data); err != nil {
		return "", err
	}
	safetext.Fprintf(p.e.stdout, "%s\n", partial)
	safetext.Fprintf(p.e.stderr, "%s: PARTIAL results (%d of %d entries; missing: %s)\n", partial, len(m.BuiltEntries), len(m.Entries), strings.Join(failed, ", "))
	return problem, nil
}

// writeIndex copies the merged index out when asked for and complete.
func (p *processRun) writeIndex(ctx context.Context, out *nixdriver.Outcome) (string, error) {
	switch {
	case p.indexFile == "":
		return "", nil
	case len(out.Refused) > 0:
		return fmt.Sprintf("index %s not written: not every manifest could be processed", p.indexFile), nil
	case !out.IndexBuilt:
		return fmt.Sprintf("index %s not written: its derivation did not build", p.indexFile), nil
	}
	return "", p.copyOut(ctx, out, out.Index.Out, p.indexFile)
}

// copyOut replaces dst atomically with the store file src (read from the
// build's store: local, or --store), unless dst holds it already, and
// prints dst.
func (p *processRun) copyOut(ctx context.Context, out *nixdriver.Outcome, src, dst string) error {
	data, err := out.ReadFile(ctx, src)
	if err != nil {
		return fmt.Errorf("copy result: %w", err)
	}
	if _, err := atomicfile.WriteIfChanged(dst, data); err != nil {
		return err
	}
	safetext.Fprintf(p.e.stdout, "%s\n", dst)
	return nil
}
