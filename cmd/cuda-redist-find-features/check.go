package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
	"github.com/nix-cuda/cuda-redist-find-features/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// exitError makes run exit with a code other than exitFail.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func checkNixpkgsCommand() command {
	return command{
		name: "check-nixpkgs",
		args: "[PACKAGES_DIR MANIFEST_DIR...]",
		summary: "Compare the buildRedist calls of a Nixpkgs cuda-modules packages directory with what the archives of the manifests need " +
			"(outputs, stubs hook, /usr/ references, library dependencies). Exit 0: no error; 1: a build would fail (or a file does not evaluate); " +
			"2: usage; 3: no error found, but some manifests could not be read or some archives could not be fetched, unpacked or detected.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			cf := addCheckFlags(fs)
			return func(args []string) error { return cf.run(e, args) }
		},
	}
}

// checkFlags are check-nixpkgs' flags.
type checkFlags struct {
	ff                                 *filterFlags
	urls                               multiFlag
	nixpkgs, cudaVersion               *string
	globstar, hints, jsonOut, evalOnly *bool
	fix, dryRun, removeVendored        *bool
	redists                            multiFlag
	sonameIndexes                      multiFlag
	jobs                               *int
	evalTimeout                        *time.Duration
	evalMaxMemory                      byteSize
	nf                                 *nixFlags
	cf                                 *capabilityFlags
}

func addCheckFlags(fs *flag.FlagSet) *checkFlags {
	cf := &checkFlags{ff: addFilterFlags(fs)}
	fs.Var(&cf.urls, "url", "[REDIST=]URL: where archives of a manifest directory come from (default: NVIDIA's, by the directory's name)")
	cf.nixpkgs = fs.String("nixpkgs", "", "a Nixpkgs checkout: evaluate with its lib/; without arguments, check its "+nixpkgscheck.PackagesDir+" against "+nixpkgscheck.ManifestsDir+"/*")
	cf.cudaVersion = fs.String("cuda-version", "", "cudaVersion for packages without CUDA variants (default: the manifest's version for the cuda redist, else "+nixpkgscheck.DefaultCudaVersion+")")
	cf.globstar = fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
	cf.hints = fs.Bool("hints", true, "also print hints: outputs that could be split off, unused or unresolvable dependencies (never an error)")
	cf.jsonOut = fs.Bool("json", false, "print one JSON object per finding and line (fields: level, kind, package, platform, variant, version, declared, needed, message, file, path)")
	cf.evalOnly = fs.Bool("eval-only", false, "only evaluate the package files (for every platform and CUDA version of the manifests), fetching no archive: seconds, not hours")
	cf.jobs = fs.Int("eval-jobs", 0, "nix-instantiate processes at once when package files are evaluated one by one (default: the number of CPUs)")
	cf.evalTimeout = fs.Duration("eval-timeout", pkgeval.DefaultTimeout, "time bound of each nix-instantiate that evaluates package files; a file that runs past it is an ERROR")
	cf.evalMaxMemory = pkgeval.DefaultMaxMemory
	fs.Var(&cf.evalMaxMemory, "eval-max-memory", "address-space bound of each nix-instantiate that evaluates package files (KiB, MiB, GiB); a file that runs out of it is an ERROR")
	cf.fix = fs.Bool("fix", false, "repair the package files: the smallest edits of outputs, allowFHSReferences and includeRemoveStubsFromRunpathHook that fix every error, "+
		"a new PNAME.nix for a package no file has; print the unified diff, then what the check of the repaired files finds (a file it cannot fix safely is an error saying why)")
	cf.dryRun = fs.Bool("dry-run", false, "with --fix: print the diff, write nothing")
	cf.removeVendored = fs.Bool("remove-vendored", false, "with --fix: also add a postPatch that removes the vendored libraries a file keeps (an rmPatterns list and a loop; docs/vendored.md); "+
		"Nixpkgs' own builds must then be in its buildInputs")
	fs.Var(&cf.redists, "redist", "NAME=DIR: the manifests in DIR are of redist NAME (the redistName of its package files); default: the directory's name")
	fs.Var(&cf.sonameIndexes, "soname-index", "a soname index to read besides the default (repeatable; docs/vendored.md): a HINT names each vendored library a package file keeps")
	cf.nf = addNixFlags(fs)
	cf.cf = addCapabilityFlags(fs)
	return cf
}

func (cf *checkFlags) run(e *env, args []string) error {
	packagesDir, manifestDirs, err := checkDirs(*cf.nixpkgs, args, len(cf.redists) > 0)
	if err != nil {
		return err
	}
	if err := cf.validateFix(); err != nil {
		return err
	}
	manifestDirs, redists, err := redistDirs(manifestDirs, cf.redists)
	if err != nil {
		return err
	}
	flt, err := cf.ff.filter()
	if err != nil {
		return err
	}
	cov, err := cf.cf.parse(*cf.evalOnly, e)
	if err != nil {
		return err
	}
	c, err := cf.newRun(e)
	if err != nil {
		return err
	}
	c.coverage = cov
	c.redists = redists
	if err := c.addManifests(manifestDirs, cf.urls, flt); err != nil {
		return err
	}
	if len(c.manifests) == 0 {
		return fmt.Errorf("no redistrib_<version>.json in %s matches %s", strings.Join(manifestDirs, ", "), cf.ff.describe())
	}
	return c.run(e.context(), mustAbs(packagesDir))
}

// newRun sets up the Nix runner and the package-file evaluator.
func (cf *checkFlags) newRun(e *env) (*checkRun, error) {
	runner, err := cf.nf.runner(true, e)
	if err != nil {
		return nil, err
	}
	runner.BuildArgs = append(runner.BuildArgs, "--keep-going")
	c := &checkRun{e: e, runner: runner, globstar: *cf.globstar, hints: *cf.hints, json: *cf.jsonOut, cudaVersion: *cf.cudaVersion, evalOnly: *cf.evalOnly,
		fix: *cf.fix, dryRun: *cf.dryRun, removeVendored: *cf.removeVendored,
		eval: &pkgeval.Evaluator{StandIn: filepath.Join(runner.NixLib, "buildredist-standin.nix"), Options: runner.Options, Jobs: *cf.jobs,
			Timeout: *cf.evalTimeout, MaxMemory: int64(cf.evalMaxMemory)}}
	if *cf.evalTimeout <= 0 {
		return nil, usageErrorf("--eval-timeout %s: want a positive duration", *cf.evalTimeout)
	}
	if c.eval.Jobs <= 0 {
		c.eval.Jobs = runtime.NumCPU()
	}
	if c.sonameIndex, err = loadSonameIndex(cf.sonameIndexes, false); err != nil {
		return nil, err
	}
	if *cf.nixpkgs != "" {
		c.eval.NixpkgsLib = filepath.Join(mustAbs(*cf.nixpkgs), "lib")
	}
	return c, nil
}

// checkDirs works out the packages directory and the manifest directories
// from the arguments (PACKAGES_DIR alone when --redist gives them), or
// from the Nixpkgs checkout alone.
func checkDirs(nixpkgs string, args []string, redists bool) (string, []string, error) {
	if nixpkgs != "" {
		if st, err := os.Stat(filepath.Join(nixpkgs, "lib", "default.nix")); err != nil || !st.Mode().IsRegular() {
			return "", nil, usageErrorf("--nixpkgs %s: no lib/default.nix there (want a Nixpkgs checkout)", nixpkgs)
		}
	}
	switch {
	case len(args) >= 2, len(args) == 1 && nixpkgs == "" && redists:
		return args[0], args[1:], nil
	case nixpkgs == "":
		return "", nil, usageErrorf("check-nixpkgs takes PACKAGES_DIR and at least one MANIFEST_DIR, or --nixpkgs DIR")
	}
	packages := filepath.Join(nixpkgs, nixpkgscheck.PackagesDir)
	if len(args) == 1 {
		packages = args[0]
	}
	dirs, err := nixpkgsManifestDirs(nixpkgs)
	return packages, dirs, err
}

// nixpkgsManifestDirs lists the manifest directories of a Nixpkgs checkout.
func nixpkgsManifestDirs(nixpkgs string) ([]string, error) {
	root := filepath.Join(nixpkgs, nixpkgscheck.ManifestsDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, usageErrorf("--nixpkgs %s: no manifests: %v", nixpkgs, err)
	}
	var dirs []string
	for _, en := range entries {
		if en.IsDir() {
			dirs = append(dirs, filepath.Join(root, en.Name()))
		}
	}
	if len(dirs) == 0 {
		return nil, usageErrorf("--nixpkgs %s: no manifest directory in %s", nixpkgs, root)
	}
	return dirs, nil
}

type checkRun struct {
	e           *env
	runner      *nixdriver.Runner
	eval        *pkgeval.Evaluator
	manifests   []nixdriver.Manifest
	globstar    bool
	hints       bool
	json        bool
	cudaVersion string
	// evalOnly: evaluate the package files for the manifests' cases and
	// report what does not evaluate; no archive is fetched or checked.
	evalOnly bool
	// coverage: the --cuda-capabilities to report gaps for.
	coverage capabilityCheck
	// fix: repair the package files (checkfix.go); dryRun: only show how;
	// removeVendored: propose removing the vendored libraries too.
	fix, dryRun, removeVendored bool
	// redists names manifest directories (--redist NAME=DIR), by
	// absolute path.
	redists map[string]string
	// sonameIndex is the default index and --soname-index's files, for
	// the vendored-library hints.
	sonameIndex *sonameindex.Index
}

// addManifests adds the manifests of each directory that pass the filter,
// with the base URL their archives are fetched from.
func (c *checkRun) addManifests(dirs, urls []string, flt manifest.Filter) error {
	for _, dir := range dirs {
		redist := c.redistName(dir)
		url, guessed := nixpkgscheck.BaseURL(urls, redist, len(dirs) == 1)
		switch {
		case guessed && c.evalOnly:
			url = "" // nothing is fetched
		case guessed:
			c.e.log.Warn("no known base URL for this redist; trying NVIDIA's usual one (pass --url to set it)", "redist", redist, "url", url)
		}
		found, err := manifest.FindManifests(dir, flt)
		if err != nil {
			return err
		}
		for _, f := range found {
			c.manifests = append(c.manifests, nixdriver.Manifest{RedistName: redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
		}
	}
	// The unpacks process-manifests pinned are read pinned (never
	// recorded here): the detections it made are reused.
	_, err := pinUnpacks(true, c.manifests)
	return err
}

func (c *checkRun) run(ctx context.Context, packagesDir string) error {
	valid, err := nixdriver.Validate(c.manifests, c.e.log)
	if err != nil {
		return err
	}
	listing, err := pkgeval.Files(packagesDir)
	if err != nil {
		return err
	}
	files, unread := listing.Files, nixpkgscheck.UnreadFindings(listing.Unread)
	if len(files) == 0 {
		return fmt.Errorf("%s: no package file calls buildRedist", packagesDir)
	}
	build := nixdriver.BuildDetections
	if c.evalOnly {
		build = nixdriver.BuildNothing
	}
	out, err := c.runner.Process(ctx, valid, nixdriver.ProcessOptions{Build: build, Log: c.e.log})
	if err != nil {
		return err
	}
	defer out.Close()
	in := nixpkgscheck.Input{CudaVersion: c.cudaVersion, EvalOnly: c.evalOnly, Globstar: c.globstar, PackagesDir: packagesDir,
		Vendored: &nixpkgscheck.VendoredCheck{Index: c.sonameIndex, ReadFile: func(file string) ([]byte, error) { return os.ReadFile(filepath.Join(packagesDir, file)) }}}
	out.CheckInput(ctx, &in, c.e.log)
	plan := nixpkgscheck.NewPlan(in)
	results, err := c.eval.Evaluate(ctx, packagesDir, files, plan.Cases)
	if err != nil {
		return err
	}
	c.e.log.Info("evaluated package files", "files", len(files), "cases", len(plan.Cases), "nix-instantiate runs", c.eval.Runs())
	if c.fix {
		return c.repair(ctx, packagesDir, files, unread, plan, results)
	}
	findings, err := c.coverage.add(append(plan.Check(files, results), unread...), in.Archives)
	if err != nil {
		return err
	}
	nixpkgscheck.Sort(findings)
	return c.report(findings)
}

// report prints the findings, in the order of nixpkgscheck.Check, and
// returns the error that sets the exit code.
func (c *checkRun) report(findings []nixpkgscheck.Finding) error {
	enc := json.NewEncoder(c.e.stdout)
	for _, f := range findings {
		if err := c.print(enc, f); err != nil {
			return fmt.Errorf("printing the report: %w", err)
		}
	}
	n := nixpkgscheck.Count(findings)
	c.e.log.Info("check-nixpkgs", "errors", n.Errors, "warnings", n.Warnings, "hints", n.Hints, "failures", n.Failures, "refusedManifests", n.Refused)
	code, err := n.Outcome()
	if err != nil {
		return &exitError{code: code, err: err}
	}
	return nil
}

// print writes one finding as a line of text or JSON; hints only with
// --hints (they are counted either way).
func (c *checkRun) print(enc *json.Encoder, f nixpkgscheck.Finding) error {
	switch {
	case f.Level == nixpkgscheck.LevelHint && !c.hints:
		return nil
	case c.json:
		return enc.Encode(f)
	}
	_, err := fmt.Fprintln(c.e.stdout, f.Text())
	return err
}

// exitCodeOf returns the exit code an error asks for, if any.
func exitCodeOf(err error) (int, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, true
	}
	return 0, false
}
