package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/lib/sonameindex"
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
		json: jsonLines,
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
	ff                                  *filterFlags
	urls                                multiFlag
	nixpkgs, cudaVersion                *string
	globstar, hints, jsonOut, evalOnly  *bool
	fix, dryRun, removeVendored, strict *bool
	redists                             multiFlag
	sonameIndexes                       multiFlag
	jobs                                *int
	evalTimeout                         *time.Duration
	evalMaxMemory                       byteSize
	nf                                  *nixFlags
	cf                                  *capabilityFlags
	verifyPinned                        *bool
}

func addCheckFlags(fs *flag.FlagSet) *checkFlags {
	cf := &checkFlags{ff: addFilterFlags(fs)}
	fs.Var(&cf.urls, "url", "[REDIST=]URL: where archives of a manifest directory come from (default: NVIDIA's, by the directory's name)")
	cf.nixpkgs = fs.String("nixpkgs", "", "a Nixpkgs checkout: evaluate with its lib/; without arguments, check its "+nixpkgscheck.PackagesDir+" against "+nixpkgscheck.ManifestsDir+"/*")
	cf.cudaVersion = fs.String("cuda-version", "", "cudaVersion for packages without CUDA variants (default: the manifest's version for the cuda redist, else "+nixpkgscheck.DefaultCudaVersion+")")
	cf.globstar = fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
	cf.hints = fs.Bool("hints", true, "also print hints: outputs that could be split off, unused or unresolvable dependencies (never an error)")
	cf.jsonOut = fs.Bool("json", false, "print one JSON object per finding and line (fields: level, kind, package, platform, variant, version, declared, needed, message, file, path, files, count), then a last line {\"summary\": {files, checked, notChecked, cases, archives, errors, warnings, hints, failures, refusedManifests}}; a run that stops early (an error, a signal) ends with {\"summary\": {\"error\": {message, exitCode, signal}}} instead")
	cf.verifyPinned = fs.Bool("verify-pinned", false, verifyPinnedHelp)
	cf.evalOnly = fs.Bool("eval-only", false, "only evaluate the package files (for every platform and CUDA version of the manifests), fetching no archive: seconds, not hours")
	cf.jobs = fs.Int("eval-jobs", 0, "nix-instantiate processes at once when package files are evaluated one by one (default: the number of CPUs)")
	cf.evalTimeout = fs.Duration("eval-timeout", pkgeval.DefaultTimeout, "time bound of each nix-instantiate that evaluates package files; a file that runs past it is an ERROR")
	cf.evalMaxMemory = pkgeval.DefaultMaxMemory
	fs.Var(&cf.evalMaxMemory, "eval-max-memory", "address-space bound of each nix-instantiate that evaluates package files (KiB, MiB, GiB); a file that runs out of it is an ERROR")
	cf.fix = fs.Bool("fix", false, "repair the package files: the smallest edits of outputs, allowFHSReferences and includeRemoveStubsFromRunpathHook that fix every error, "+
		"a new PNAME.nix for a package no file has, meta.license where the licence table (docs/licences.md) knows the manifest's licence, a renamed cuda package's pname by CUDA version; "+
		"print the unified diff, then what the check of the repaired files finds (a file it cannot fix safely is an error saying why). With --eval-only, only what needs no archive: licences and pnames")
	cf.dryRun = fs.Bool("dry-run", false, "with --fix: print the diff, write nothing; exit as the check of the repaired files would")
	cf.strict = fs.Bool("strict", false, "fail (exit 1) when package files were not checked because no manifest of their redist was given")
	cf.removeVendored = fs.Bool("remove-vendored", false, "with --fix: also add a postPatch that removes the vendored libraries a file keeps (an rmPatterns list and a loop; docs/vendored.md); "+
		"Nixpkgs' own builds must then be in its buildInputs")
	fs.Var(&cf.redists, "redist", "NAME=DIR: the manifests in DIR are of redist NAME (the redistName of its package files); default: the directory's name")
	fs.Var(&cf.sonameIndexes, "soname-index", "a soname index to read besides the default (repeatable; docs/vendored.md): a HINT names each vendored library a package file keeps")
	cf.nf = addNixFlags(fs)
	cf.cf = addCapabilityFlags(fs)
	return cf
}

func (cf *checkFlags) run(e *env, args []string) error {
	a, err := cf.parseArgs(args)
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
	c.redists = a.redists
	if err := c.addManifests(a.manifestDirs, a.urls, a.filter); err != nil {
		return err
	}
	if len(c.manifests) == 0 {
		return noManifestError(a.manifestDirs, cf.ff)
	}
	// A signal while the manifests were read (with --json, caught from
	// the start): stop before Nix is set up.
	if err := e.interrupted(); err != nil {
		return err
	}
	// The arguments first, then the environment (program, Nix library).
	if err := c.attachRunner(cf.nf); err != nil {
		return err
	}
	return c.run(e.context(), mustAbs(a.packagesDir))
}

// checkArgs are check-nixpkgs' arguments, read and checked.
type checkArgs struct {
	packagesDir  string
	manifestDirs []string
	redists      map[string]string
	urls         []string
	filter       manifest.Filter
}

// parseArgs reads the arguments and the flags that name inputs, and
// refuses what cannot work, before anything is run.
func (cf *checkFlags) parseArgs(args []string) (*checkArgs, error) {
	packagesDir, manifestDirs, err := checkDirs(*cf.nixpkgs, args, len(cf.redists) > 0)
	if err != nil {
		return nil, err
	}
	if err := cf.validateFix(); err != nil {
		return nil, err
	}
	a := &checkArgs{packagesDir: packagesDir}
	if a.manifestDirs, a.redists, err = redistDirs(manifestDirs, cf.redists); err != nil {
		return nil, err
	}
	if a.filter, err = cf.ff.filter(); err != nil {
		return nil, err
	}
	if err := packagesDirExists(packagesDir, *cf.nixpkgs); err != nil {
		return nil, err
	}
	if a.urls, err = checkURLs(cf.urls); err != nil {
		return nil, err
	}
	return a, nil
}

// newRun sets up the package-file evaluator from the flags.
func (cf *checkFlags) newRun(e *env) (*checkRun, error) {
	c := &checkRun{e: e, globstar: *cf.globstar, hints: *cf.hints, json: *cf.jsonOut, cudaVersion: *cf.cudaVersion, evalOnly: *cf.evalOnly,
		fix: *cf.fix, dryRun: *cf.dryRun, removeVendored: *cf.removeVendored, strict: *cf.strict,
		maxArchives: *cf.nf.maxArchives, verifyPinned: *cf.verifyPinned,
		eval: &pkgeval.Evaluator{Jobs: *cf.jobs, Timeout: *cf.evalTimeout, MaxMemory: int64(cf.evalMaxMemory),
			// -v: Nix's "… while evaluating" trace lines too.
			Trace: e.log.Enabled(context.Background(), slog.LevelInfo)}}
	if *cf.evalTimeout <= 0 {
		return nil, usageErrorf("--eval-timeout %s: want a positive duration", *cf.evalTimeout)
	}
	if c.eval.Jobs <= 0 {
		c.eval.Jobs = runtime.NumCPU()
	}
	idx, err := loadSonameIndex(e, cf.sonameIndexes, false)
	if err != nil {
		return nil, err
	}
	c.sonameIndex = idx
	if *cf.nixpkgs != "" {
		c.nixpkgs = mustAbs(*cf.nixpkgs)
		c.eval.NixpkgsLib = filepath.Join(c.nixpkgs, "lib")
	}
	return c, nil
}

// attachRunner sets up the Nix runner, and the evaluator's stand-in and
// options from it.
func (c *checkRun) attachRunner(nf *nixFlags) error {
	// --eval-only walks the manifests and builds nothing: no builder.
	runner, err := nf.runner(true, !c.evalOnly, c.e)
	if err != nil {
		return err
	}
	runner.BuildArgs = append(runner.BuildArgs, "--keep-going")
	c.runner = runner
	c.eval.StandIn = filepath.Join(runner.NixLib, "buildredist-standin.nix")
	// Less the settings a daemon that does not trust the user would
	// ignore, with a word (CheckSettings): nix-instantiate hands them on
	// when it opens the store.
	c.eval.Options = runner.EffectiveOptions(c.e.context())
	return nil
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

// packagesDirExists refuses a packages directory that is not there,
// before anything is evaluated.
func packagesDirExists(dir, nixpkgs string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && st.IsDir():
		return nil
	case nixpkgs != "" && err != nil:
		return usageErrorf("--nixpkgs %s: no packages directory %s there (want a Nixpkgs checkout with cuda-modules, or pass PACKAGES_DIR)", nixpkgs, nixpkgscheck.PackagesDir)
	case err != nil:
		return usageErrorf("PACKAGES_DIR %s: no such directory (want Nixpkgs' %s)", dir, nixpkgscheck.PackagesDir)
	}
	return usageErrorf("PACKAGES_DIR %s: not a directory", dir)
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
	e *env
	// nixpkgs is --nixpkgs DIR, absolute ("" without it).
	nixpkgs     string
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
	// strict: files of a redist without manifests fail the run.
	strict bool
	// maxArchives: a manifest that lists more is refused (--max-archives).
	maxArchives int
	// records are the unpacked-hashes.json beside the manifests, by path;
	// verifyPinned: --verify-pinned.
	records      map[string]*manifest.UnpackedHashes
	verifyPinned bool
	// size: what the check covered, for the summary.
	size checkSize
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
	// recorded here), once checked: the detections it made are reused.
	var err error
	c.records, err = readRecords(true, c.manifests)
	return err
}

func (c *checkRun) run(ctx context.Context, packagesDir string) error {
	valid, err := nixdriver.Validate(c.manifests, c.maxArchives, c.e.log)
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
	} else {
		valid.Pin(recordOf(c.records))
		if err := checkPins(ctx, c.runner, valid, c.verifyPinned, nil, c.e.log); err != nil {
			return err
		}
	}
	out, err := c.runner.Process(ctx, valid, nixdriver.ProcessOptions{Build: build, Log: c.e.log})
	if err != nil {
		return err
	}
	defer out.Close()
	in := nixpkgscheck.Input{CudaVersion: c.cudaVersion, EvalOnly: c.evalOnly, Globstar: c.globstar, PackagesDir: packagesDir,
		Vendored: &nixpkgscheck.VendoredCheck{Index: c.sonameIndex, ReadFile: func(file string) ([]byte, error) { return pkgeval.ReadFile(packagesDir, file) }},
		ReadFile: func(file string) ([]byte, error) { return pkgeval.ReadFile(packagesDir, file) }}
	out.CheckInput(ctx, &in, c.e.log)
	c.addFailures(out, &in)
	plan := nixpkgscheck.NewPlan(in)
	results, err := c.eval.Evaluate(ctx, packagesDir, files, plan.Cases)
	if err != nil {
		return err
	}
	c.e.log.Info("evaluated package files", "files", len(files), "cases", len(plan.Cases), "nix-instantiate runs", c.eval.Runs())
	c.size = checkSize{files: len(files), cases: len(plan.Cases), archives: len(in.Archives)}
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

// addFailures gives each archive without a detection what failed and
// why, as the progress read it in Nix's log (the fetchFailure findings
// say it, --json too).
func (c *checkRun) addFailures(out *nixdriver.Outcome, in *nixpkgscheck.Input) {
	if c.e.buildFailure == nil {
		return
	}
	type key struct {
		redist, version string
		archive         manifest.Archive
	}
	why := map[key]string{}
	for _, m := range out.Manifests {
		for _, e := range m.Entries {
			if f := entryFailure(e, c.e.buildFailure); f != "" {
				why[key{e.Redist, e.Manifest, e.Archive}] = f
			}
		}
	}
	for i, a := range in.Archives {
		if a.Features == nil {
			in.Archives[i].Failure = why[key{a.Redist, a.Manifest, a.Archive}]
		}
	}
}

// report prints the findings, in the order of nixpkgscheck.Check, then
// the summary (a line on stderr, or with --json a last JSON object on
// stdout), and returns
// the error that sets the exit code.
func (c *checkRun) report(findings []nixpkgscheck.Finding) error {
	enc := json.NewEncoder(c.e.stdout)
	for _, f := range findings {
		if err := c.print(enc, f); err != nil {
			return fmt.Errorf("printing the report: %w", err)
		}
	}
	n := nixpkgscheck.Count(findings)
	sum := checkSummary{Files: c.size.files, Checked: c.size.files - n.NotChecked, NotChecked: n.NotChecked, Cases: c.size.cases, Archives: c.size.archives,
		Errors: n.Errors, Warnings: n.Warnings, Hints: n.Hints, Failures: n.Failures, RefusedManifests: n.Refused, hintsHidden: !c.hints, notWritten: n.NotWritten}
	var err error
	if c.json {
		if err = enc.Encode(struct {
			Summary checkSummary `json:"summary"`
		}{sum}); err == nil {
			c.e.jsonWritten()
		}
	} else {
		// On stderr: stdout stays the findings alone (a clean check
		// prints none there), the summary is for the reader.
		_, err = fmt.Fprintln(c.e.stderr, sum.text())
	}
	if err != nil {
		return fmt.Errorf("printing the report: %w", err)
	}
	if err := c.notCheckedOutcome(sum); err != nil {
		return err
	}
	code, err := n.Outcome()
	if err != nil {
		return &exitError{code: code, err: err}
	}
	return nil
}

// notCheckedOutcome fails the run when no package file was checked at
// all, or with --strict when any was not.
func (c *checkRun) notCheckedOutcome(sum checkSummary) error {
	switch {
	case sum.NotChecked > 0 && sum.Checked == 0:
		return &exitError{code: nixpkgscheck.ExitErrors, err: fmt.Errorf("nothing was checked: none of the %d package file(s) is of a redist whose manifests were given", sum.Files)}
	case sum.NotChecked > 0 && c.strict:
		return &exitError{code: nixpkgscheck.ExitErrors, err: fmt.Errorf("--strict: %d package file(s) not checked", sum.NotChecked)}
	}
	return nil
}

// checkSize is what a check covered.
type checkSize struct{ files, cases, archives int }

// checkSummary is the last line (or JSON object) of check-nixpkgs.
type checkSummary struct {
	Files            int `json:"files"`
	Checked          int `json:"checked"`
	NotChecked       int `json:"notChecked"`
	Cases            int `json:"cases"`
	Archives         int `json:"archives"`
	Errors           int `json:"errors"`
	Warnings         int `json:"warnings"`
	Hints            int `json:"hints"`
	Failures         int `json:"failures"`
	RefusedManifests int `json:"refusedManifests"`
	// hintsHidden: --hints=false (the text says the hints were not shown).
	hintsHidden bool
	// notWritten: the files --fix could not write (--fix has no --json).
	notWritten int
}

func (s checkSummary) text() string {
	line := fmt.Sprintf("checked %d package file(s)", s.Checked)
	if s.NotChecked > 0 {
		line += fmt.Sprintf(" (%d not checked)", s.NotChecked)
	}
	line += fmt.Sprintf(", %d case(s), %d archive(s): %d error(s), %d warning(s), %d hint(s)", s.Cases, s.Archives, s.Errors, s.Warnings, s.Hints)
	if s.hintsHidden && s.Hints > 0 {
		line += " (not shown: --hints=false)"
	}
	if s.notWritten > 0 {
		line += fmt.Sprintf(", %d file(s) not written", s.notWritten)
	}
	if s.Failures+s.RefusedManifests > 0 {
		line += fmt.Sprintf(", %d archive(s) and %d manifest(s) not checked", s.Failures, s.RefusedManifests)
	}
	return line
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
