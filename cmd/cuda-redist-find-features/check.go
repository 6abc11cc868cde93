package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	flag "github.com/spf13/pflag"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/deps"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// exitIncomplete: no drift found, but some archives could not be fetched,
// unpacked or detected, so the check is incomplete.
const exitIncomplete = 3

// exitError makes run exit with a code other than exitFail.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Where a Nixpkgs checkout keeps the cuda-modules package files and manifests.
const (
	nixpkgsPackagesDir  = "pkgs/development/cuda-modules/packages"
	nixpkgsManifestsDir = "pkgs/development/cuda-modules/_cuda/manifests"
)

func checkNixpkgsCommand() command {
	return command{
		name: "check-nixpkgs",
		args: "[PACKAGES_DIR MANIFEST_DIR...]",
		summary: "Compare the buildRedist calls of a Nixpkgs cuda-modules packages directory with what the archives of the manifests need " +
			"(outputs, stubs hook, /usr/ references, library dependencies). Exit 0: no error; 1: a build would fail (or a file does not evaluate); " +
			"2: usage; 3: no error found, but some archives could not be fetched, unpacked or detected.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			ff := addFilterFlags(fs)
			var urls multiFlag
			fs.Var(&urls, "url", "[REDIST=]URL: where archives of a manifest directory come from (default: NVIDIA's, by the directory's name)")
			nixpkgs := fs.String("nixpkgs", "", "a Nixpkgs checkout: evaluate with its lib/; without arguments, check its "+nixpkgsPackagesDir+" against "+nixpkgsManifestsDir+"/*")
			cudaVersion := fs.String("cuda-version", "", "cudaVersion for packages without CUDA variants (default: the manifest's version for the cuda redist, else 12.8)")
			globstar := fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
			hints := fs.Bool("hints", true, "also print hints: outputs that could be split off, unused or unresolvable dependencies (never an error)")
			jsonOut := fs.Bool("json", false, "print one JSON object per finding and line (fields: level, kind, package, platform, variant, version, declared, needed, message, file, path)")
			evalOnly := fs.Bool("eval-only", false, "only evaluate the package files (for every platform and CUDA version of the manifests), fetching no archive: seconds, not hours")
			jobs := fs.Int("eval-jobs", 0, "nix-instantiate processes at once when package files are evaluated one by one (default: the number of CPUs)")
			nf := addNixFlags(fs)
			return func(args []string) error {
				packagesDir, manifestDirs, err := checkDirs(*nixpkgs, args)
				if err != nil {
					return err
				}
				flt, err := ff.filter()
				if err != nil {
					return err
				}
				runner, err := nf.runner(true, e)
				if err != nil {
					return err
				}
				runner.BuildArgs = append(runner.BuildArgs, "--keep-going")
				c := checkRun{e: e, runner: runner, globstar: *globstar, hints: *hints, json: *jsonOut, cudaVersion: *cudaVersion, evalOnly: *evalOnly,
					eval: &pkgeval.Evaluator{StandIn: filepath.Join(runner.NixLib, "buildredist-standin.nix"), Options: runner.Options, Jobs: *jobs}}
				if c.eval.Jobs <= 0 {
					c.eval.Jobs = runtime.NumCPU()
				}
				if *nixpkgs != "" {
					c.eval.NixpkgsLib = filepath.Join(mustAbs(*nixpkgs), "lib")
				}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
				defer stop()
				for _, dir := range manifestDirs {
					redist := filepath.Base(mustAbs(dir))
					url, err := urlFor(urls, redist, len(manifestDirs) == 1)
					switch {
					case err != nil && *evalOnly:
						url = "" // nothing is fetched
					case err != nil:
						// Nixpkgs has redists base-urls.json does not list (cublasmp,
						// nvpl, ...): NVIDIA's usual layout; a wrong guess is a fetch
						// failure, never a wrong archive (the hash is checked).
						url = nvidiaConventionalBase + redist + "/redist"
						e.log.Warn("no known base URL for this redist; trying NVIDIA's usual one (pass --url to set it)", "redist", redist, "url", url)
					}
					found, err := manifest.FindManifests(dir, flt)
					if err != nil {
						return err
					}
					for _, f := range found {
						c.manifests = append(c.manifests, nixdriver.Manifest{RedistName: redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
					}
				}
				if len(c.manifests) == 0 {
					return fmt.Errorf("no redistrib_<version>.json in %s matches %s", strings.Join(manifestDirs, ", "), ff.describe())
				}
				return c.run(ctx, mustAbs(packagesDir))
			}
		},
	}
}

// checkDirs works out the packages directory and the manifest directories
// from the arguments, or from the Nixpkgs checkout alone.
func checkDirs(nixpkgs string, args []string) (string, []string, error) {
	if nixpkgs != "" {
		if st, err := os.Stat(filepath.Join(nixpkgs, "lib", "default.nix")); err != nil || !st.Mode().IsRegular() {
			return "", nil, usageErrorf("--nixpkgs %s: no lib/default.nix there (want a Nixpkgs checkout)", nixpkgs)
		}
	}
	switch {
	case len(args) >= 2:
		return args[0], args[1:], nil
	case nixpkgs == "":
		return "", nil, usageErrorf("check-nixpkgs takes PACKAGES_DIR and at least one MANIFEST_DIR, or --nixpkgs DIR")
	}
	packages := filepath.Join(nixpkgs, nixpkgsPackagesDir)
	if len(args) == 1 {
		packages = args[0]
	}
	root := filepath.Join(nixpkgs, nixpkgsManifestsDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", nil, usageErrorf("--nixpkgs %s: no manifests: %v", nixpkgs, err)
	}
	var dirs []string
	for _, en := range entries {
		if en.IsDir() {
			dirs = append(dirs, filepath.Join(root, en.Name()))
		}
	}
	if len(dirs) == 0 {
		return "", nil, usageErrorf("--nixpkgs %s: no manifest directory in %s", nixpkgs, root)
	}
	return packages, dirs, nil
}

// nvidiaConventionalBase + REDIST + "/redist" is where NVIDIA keeps most redists.
const nvidiaConventionalBase = "https://developer.download.nvidia.com/compute/"

// urlFor picks the base URL of a manifest directory: REDIST=URL, a plain
// URL when there is one directory, or NVIDIA's known base.
func urlFor(urls []string, redist string, single bool) (string, error) {
	for _, u := range urls {
		if name, url, ok := strings.Cut(u, "="); ok && name == redist && !strings.Contains(name, "/") {
			return url, nil
		}
	}
	for _, u := range urls {
		if name, _, ok := strings.Cut(u, "="); !ok || strings.Contains(name, "/") {
			if single {
				return u, nil
			}
		}
	}
	if url, ok := manifest.BaseURL(redist); ok {
		return url, nil
	}
	return "", usageErrorf("no base URL for manifest directory %q: pass --url %s=URL", redist, redist)
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
}

// target is one archive to check: its detection, and the case to
// evaluate the package file for.
type target struct {
	m                      nixdriver.Manifest
	pkg, platform, variant string
	features               *features.Features
	cudaVersion            string
	caseIndex              int
}

// finding is one line of the report.
type finding struct {
	Level    string   `json:"level"` // error, hint, failure
	Kind     string   `json:"kind"`
	Package  string   `json:"package,omitempty"`
	Platform string   `json:"platform,omitempty"`
	Variant  string   `json:"variant,omitempty"`
	Version  string   `json:"version,omitempty"` // the manifest's
	Declared []string `json:"declared,omitempty"`
	Needed   []string `json:"needed,omitempty"`
	Message  string   `json:"message"`
	File     string   `json:"file,omitempty"` // the package file, relative to the packages directory
	Path     string   `json:"path,omitempty"` // the archive's file or directory that makes the difference
}

func (c *checkRun) cudaVersionFor(m nixdriver.Manifest, variant string) string {
	v := c.cudaVersion
	if v == "" {
		v = "12.8"
		if m.RedistName == "cuda" {
			parts := strings.Split(m.Version, ".")
			v = strings.Join(parts[:2], ".")
		}
	}
	if major := strings.TrimPrefix(variant, "cuda"); variant != "" && !strings.HasPrefix(v, major+".") {
		v = major + ".0"
	}
	return v
}

// caseKey identifies an evaluation case: a platform and CUDA version for
// one manifest.
type caseKey struct{ platform, cudaVersion, redist, version string }

func (c *checkRun) run(ctx context.Context, packagesDir string) error {
	releases := map[[2]string]map[string]string{} // redist, version → package → version
	parsed := map[string]*manifest.Manifest{}
	var manifestEntries []nixdriver.Entry // every archive, as the pipeline would list it
	for _, m := range c.manifests {
		mf, err := manifest.ReadFile(m.Path)
		if err != nil {
			return err
		}
		parsed[m.Path] = mf
		rs := map[string]string{}
		for pkg, r := range mf.Releases {
			rs[pkg] = r.Version
		}
		releases[[2]string{m.RedistName, m.Version}] = rs
		for _, a := range mf.Archives() {
			manifestEntries = append(manifestEntries, nixdriver.Entry{Manifest: m.Version, Redist: m.RedistName, Package: a.Package, Platform: a.Platform, Variant: a.VariantKey()})
		}
	}
	files, err := pkgeval.Files(packagesDir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no package file calls buildRedist", packagesDir)
	}
	entries := manifestEntries
	if !c.evalOnly {
		plan, err := c.runner.Instantiate(ctx, c.manifests, "")
		if err != nil {
			return err
		}
		if err := c.runner.AddLocalArchives(ctx, plan, parsed, c.e.log); err != nil {
			return err
		}
		entries = plan.Entries()
		if err := c.runner.Build(ctx, c.manifests); err != nil {
			c.e.log.Warn("some detections failed to build; they are reported apart", "error", err)
		}
	}

	var targets []target
	var findings []finding
	caseIndex := map[caseKey]int{}
	var cases []pkgeval.Case
	var caseNames []string
	for _, en := range entries {
		if strings.HasPrefix(en.Platform, "windows") {
			continue
		}
		m := c.manifestOf(en)
		variant := ""
		if en.Variant != "None" {
			variant = en.Variant
		}
		tg := target{m: m, pkg: en.Package, platform: en.Platform, variant: en.Variant, cudaVersion: c.cudaVersionFor(m, variant)}
		// The case is evaluated even when the archive failed to build, so
		// a file's evaluation errors show without any archive.
		key := caseKey{evalPlatform(en.Platform), tg.cudaVersion, m.RedistName, m.Version}
		i, ok := caseIndex[key]
		if !ok {
			i = len(cases)
			caseIndex[key] = i
			cases = append(cases, pkgeval.Case{Platform: key.platform, CudaVersion: key.cudaVersion, RedistName: key.redist,
				Releases: releases[[2]string{m.RedistName, m.Version}]})
			caseNames = append(caseNames, fmt.Sprintf("%s %s on %s with CUDA %s", key.redist, key.version, key.platform, key.cudaVersion))
		}
		tg.caseIndex = i
		if c.evalOnly {
			continue
		}
		f, err := features.ReadFeatures(en.OutPath)
		if err != nil {
			findings = append(findings, finding{Level: "failure", Kind: "fetchFailure", Package: en.Package, Platform: en.Platform, Variant: en.Variant, Version: m.Version,
				Message: "the archive could not be fetched, unpacked or detected (see Nix's log above)"})
			continue
		}
		tg.features = f
		targets = append(targets, tg)
	}

	results, err := c.eval.Evaluate(ctx, packagesDir, files, cases)
	if err != nil {
		return err
	}
	c.e.log.Info("evaluated package files", "files", len(files), "cases", len(cases), "nix-instantiate runs", c.eval.Runs())
	findings = append(findings, evalFindings(files, results, caseNames)...)
	findings = append(findings, noManifestFindings(files, results)...)

	// Per case: pname → file.
	byPname := make([]map[string]string, len(cases))
	for i := range cases {
		byPname[i] = map[string]string{}
		for _, file := range files {
			r := results[file][i]
			if !r.OK() {
				continue
			}
			if other, dup := byPname[i][r.Pname]; dup {
				findings = append(findings, finding{Level: "hint", Kind: "duplicatePname", File: file,
					Message: fmt.Sprintf("%s and %s both have pname %s for %s; checking %s", other, file, r.Pname, caseNames[i], other)})
				continue
			}
			byPname[i][r.Pname] = file
		}
	}

	// Who provides which soname: per manifest, and across all of them.
	perManifest := map[[2]string][]deps.Archive{}
	var all []deps.Archive
	for _, tg := range targets {
		a := deps.FromFeatures(tg.pkg, tg.platform, tg.variant, tg.features)
		k := [2]string{tg.m.RedistName, tg.m.Version}
		perManifest[k] = append(perManifest[k], a)
		all = append(all, a)
	}
	indexes := map[[2]string]*deps.Index{}
	for k, as := range perManifest {
		indexes[k] = deps.NewIndex(as)
	}
	everything := deps.NewIndex(all)

	for _, tg := range targets {
		opts := buildredist.Options{CudaMajor: strings.Split(tg.cudaVersion, ".")[0], Globstar: c.globstar}
		needed := buildredist.Analyze(tg.features.Tree, opts).Outputs
		base := finding{Package: tg.pkg, Platform: tg.platform, Variant: tg.variant, Version: tg.m.Version, Needed: needed}
		file, ok := byPname[tg.caseIndex][tg.pkg]
		if !ok {
			broken := brokenFiles(results, tg.caseIndex)
			if contains(broken, tg.pkg+".nix") || contains(broken, tg.pkg+"/package.nix") || contains(broken, tg.pkg+"/default.nix") {
				continue // its evaluation error is reported already
			}
			f := base
			f.Level, f.Kind, f.Message = "hint", "noPackageFile", "no package file in "+packagesDir+" has this pname"
			if len(broken) > 0 {
				f.Message += " (unless it is one of those that do not evaluate: " + strings.Join(broken, ", ") + ")"
			}
			findings = append(findings, f)
			continue
		}
		ev := results[file][tg.caseIndex]
		decl := buildredist.Declaration{Outputs: ev.Outputs, IncludeRemoveStubsFromRunpathHook: ev.IncludeRemoveStubsFromRunpathHook, AllowFHSReferences: ev.AllowFHSReferences}
		for _, bf := range buildredist.Check(tg.features.Tree, decl, opts) {
			f := base
			f.Level, f.Kind, f.Message, f.Path, f.File, f.Declared = level(bf.Error), bf.Kind, bf.Message, bf.File, file, ev.Outputs
			findings = append(findings, f)
		}
		if !ev.HasDeps {
			continue // its inputs do not evaluate (reported already)
		}
		archive := deps.FromFeatures(tg.pkg, tg.platform, tg.variant, tg.features)
		needs := deps.Needs(archive, indexes[[2]string{tg.m.RedistName, tg.m.Version}], everything)
		in := deps.Inputs{BuildInputs: ev.BuildInputs, Available: available(ev, byPname[tg.caseIndex], results, tg.caseIndex),
			Ignore: ev.IgnoreMissingDeps, IgnoreAll: ev.IgnoreAllMissingDeps}
		for _, df := range deps.Compare(needs, in, everything.Known) {
			f := base
			f.Level, f.Kind, f.Message, f.File = level(df.Error), df.Kind, df.Message, file
			findings = append(findings, f)
		}
	}
	return c.report(findings)
}

func level(isError bool) string {
	if isError {
		return "error"
	}
	return "hint"
}

// available is what autoPatchelfHook can search for a package: its build
// and propagated inputs, and what those propagate, transitively (looked up
// by pname among the files evaluated for the same case).
func available(ev pkgeval.Result, byPname map[string]string, results map[string][]pkgeval.Result, i int) []string {
	seen := map[string]bool{}
	var out []string
	var visit func(names []string)
	visit = func(names []string) {
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, n)
			if file, ok := byPname[n]; ok {
				visit(results[file][i].PropagatedBuildInputs)
			}
		}
	}
	visit(ev.BuildInputs)
	visit(ev.PropagatedBuildInputs)
	return out
}

// brokenFiles are the files that do not evaluate for case i, sorted.
func brokenFiles(results map[string][]pkgeval.Result, i int) []string {
	var out []string
	for file, rs := range results {
		if rs[i].Error != "" {
			out = append(out, file)
		}
	}
	sort.Strings(out)
	return out
}

// evalFindings reports each file that does not evaluate, once per
// distinct Nix message, naming the cases when not all of them fail.
func evalFindings(files []string, results map[string][]pkgeval.Result, caseNames []string) []finding {
	var out []finding
	for _, file := range files {
		for _, kind := range []string{"evalError", "inputsEvalError"} {
			byMsg := map[string][]string{}
			var order []string
			relevant := 0 // cases of the file's redist (or where that is unknown)
			for i, r := range results[file] {
				if !r.Skip && !r.NotBuildRedist {
					relevant++
				}
				msg := r.Error
				if kind == "inputsEvalError" {
					msg = r.DepsError
				}
				if msg == "" {
					continue
				}
				if _, seen := byMsg[msg]; !seen {
					order = append(order, msg)
				}
				byMsg[msg] = append(byMsg[msg], caseNames[i])
			}
			for _, msg := range order {
				text := "does not evaluate: " + msg
				if kind == "inputsEvalError" {
					text = "its buildInputs do not evaluate (outputs checked without them): " + msg
				}
				if n := len(byMsg[msg]); n < relevant {
					text += " (for " + strings.Join(byMsg[msg], "; ") + ")"
				}
				out = append(out, finding{Level: "error", Kind: kind, File: file, Message: text})
			}
		}
	}
	return out
}

// noManifestFindings: a file whose redist no manifest given has was
// skipped in every case, so only its redistName was evaluated; a file
// that names buildRedist but returns something else was not checked at
// all. Say so rather than let them pass for checked.
func noManifestFindings(files []string, results map[string][]pkgeval.Result) []finding {
	var out []finding
	for _, file := range files {
		rs := results[file]
		skipped, notBuildRedist := len(rs) > 0, len(rs) > 0
		for _, r := range rs {
			skipped = skipped && r.Skip
			notBuildRedist = notBuildRedist && r.NotBuildRedist
		}
		if notBuildRedist {
			out = append(out, finding{Level: "hint", Kind: "notBuildRedist", File: file,
				Message: "the file mentions buildRedist but does not return a buildRedist call, so nothing of it was checked"})
		}
		if skipped {
			out = append(out, finding{Level: "hint", Kind: "noManifest", File: file,
				Message: "redistName " + rs[0].RedistName + ": no manifest of this redist was given, so the file was evaluated only as far as its redistName"})
		}
	}
	return out
}

// report prints the findings (evaluation errors first, then by package,
// platform, variant and version, then the archives that failed to build),
// and returns the error that sets the exit code.
func (c *checkRun) report(findings []finding) error {
	rank := func(f finding) int {
		switch {
		case f.Kind == "evalError" || f.Kind == "inputsEvalError" || f.Kind == "duplicatePname" || f.Kind == "noManifest" || f.Kind == "notBuildRedist":
			return 0
		case f.Level == "failure":
			return 2
		}
		return 1
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		ka := []string{a.File, a.Package, a.Platform, a.Variant, a.Version}
		kb := []string{b.File, b.Package, b.Platform, b.Variant, b.Version}
		if rank(a) != 0 {
			ka, kb = ka[1:], kb[1:]
		}
		for x := range ka {
			if ka[x] != kb[x] {
				return ka[x] < kb[x]
			}
		}
		return false
	})
	errs, hints, failures := 0, 0, 0
	enc := json.NewEncoder(c.e.stdout)
	for _, f := range findings {
		switch f.Level {
		case "error":
			errs++
		case "hint":
			hints++
			if !c.hints {
				continue
			}
		case "failure":
			failures++
		}
		if c.json {
			if err := enc.Encode(f); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(c.e.stdout, f.text())
	}
	c.e.log.Info("check-nixpkgs", "errors", errs, "hints", hints, "failures", failures)
	switch {
	case errs > 0:
		return fmt.Errorf("%d error(s): the Nixpkgs builds of these packages would fail", errs)
	case failures > 0:
		return &exitError{code: exitIncomplete, err: fmt.Errorf("%d archive(s) could not be fetched or detected: the check is incomplete", failures)}
	}
	return nil
}

// text is the one-line form of a finding.
func (f finding) text() string {
	lvl := map[string]string{"error": "ERROR", "hint": "HINT ", "failure": "FAILED"}[f.Level]
	if f.Package == "" {
		return fmt.Sprintf("%s %s: %s", lvl, f.File, f.Message)
	}
	line := fmt.Sprintf("%s %s %s %s %s: ", lvl, f.Package, f.Platform, f.Variant, f.Version)
	if f.Kind == "fetchFailure" {
		return line + f.Message
	}
	if strings.HasSuffix(f.Kind, "Dependency") {
		return line + f.Message + " [" + f.File + "]"
	}
	line += fmt.Sprintf("declared [%s] needed [%s]: %s", strings.Join(f.Declared, " "), strings.Join(f.Needed, " "), f.Message)
	if f.Path != "" {
		line += " (" + f.Path + ")"
	}
	return line
}

func (c *checkRun) manifestOf(en nixdriver.Entry) nixdriver.Manifest {
	for _, m := range c.manifests {
		if m.Version == en.Manifest && m.RedistName == en.Redist {
			return m
		}
	}
	return nixdriver.Manifest{RedistName: en.Redist, Version: en.Manifest}
}

// evalPlatform is the hostRedistSystem a package file is evaluated for:
// source archives build on every platform; x86_64 stands for them.
func evalPlatform(p string) string {
	if p == "source" || p == "linux-all" {
		return "linux-x86_64"
	}
	return p
}

// exitCodeOf returns the exit code an error asks for, if any.
func exitCodeOf(err error) (int, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, true
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
