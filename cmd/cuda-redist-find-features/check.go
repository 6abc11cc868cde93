package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixrun"
)

func checkNixpkgsCommand() command {
	return command{
		name: "check-nixpkgs",
		args: "PACKAGES_DIR MANIFEST_DIR...",
		summary: "Compare the buildRedist calls of a Nixpkgs cuda-modules packages directory with what the archives of the manifests need; " +
			"print one line per mismatch; exit 1 when a build would fail.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			ff := addFilterFlags(fs)
			var urls multiFlag
			fs.Var(&urls, "url", "[REDIST=]URL: where archives of a manifest directory come from (default: NVIDIA's, by the directory's name)")
			cudaVersion := fs.String("cuda-version", "", "cudaVersion for packages without CUDA variants (default: the manifest's version for the cuda redist, else 12.8)")
			globstar := fs.Bool("globstar", false, "read ** in buildRedist's patterns with bash's globstar (stdenv leaves it off)")
			hints := fs.Bool("hints", true, "also print outputs that could be split off (never an error)")
			nf := addNixFlags(fs)
			return func(args []string) error {
				if len(args) < 2 {
					return usageErrorf("check-nixpkgs takes PACKAGES_DIR and at least one MANIFEST_DIR")
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
				c := checkRun{e: e, runner: runner, globstar: *globstar, hints: *hints, cudaVersion: *cudaVersion}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
				defer stop()
				for _, dir := range args[1:] {
					redist := filepath.Base(mustAbs(dir))
					url, err := urlFor(urls, redist, len(args) == 2)
					if err != nil {
						return err
					}
					found, err := manifest.FindManifests(dir, flt)
					if err != nil {
						return err
					}
					for _, f := range found {
						c.manifests = append(c.manifests, nixrun.Manifest{RedistName: redist, Version: f.Version, Path: mustAbs(f.Path), BaseURL: url})
					}
				}
				if len(c.manifests) == 0 {
					return fmt.Errorf("no manifest in %s matches", strings.Join(args[1:], ", "))
				}
				return c.run(ctx, mustAbs(args[0]))
			}
		},
	}
}

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
	runner      *nixrun.Runner
	manifests   []nixrun.Manifest
	globstar    bool
	hints       bool
	cudaVersion string
}

// target is one archive to check: its detection, and the case to
// evaluate the package file for.
type target struct {
	redist, version, pkg, platform, variant string
	features                                *features.Features
	cudaVersion                             string
}

func (c *checkRun) cudaVersionFor(m nixrun.Manifest, variant string) string {
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

func (c *checkRun) run(ctx context.Context, packagesDir string) error {
	entries, err := c.runner.Entries(ctx, c.manifests)
	if err != nil {
		return err
	}
	if err := c.runner.Build(ctx, c.manifests); err != nil {
		c.e.log.Warn("some detections failed to build; they are reported as errors", "error", err)
	}
	var targets []target
	var unbuilt []string
	caseSet := map[nixrun.Case]bool{}
	for _, en := range entries {
		if strings.HasPrefix(en.Platform, "windows") {
			continue
		}
		m := c.manifestOf(en)
		f, err := features.ReadFeatures(en.OutPath)
		if err != nil {
			unbuilt = append(unbuilt, en.ID())
			continue
		}
		variant := ""
		if en.Variant != "None" {
			variant = en.Variant
		}
		tg := target{redist: m.RedistName, version: m.Version, pkg: en.Package, platform: en.Platform, variant: en.Variant, features: f, cudaVersion: c.cudaVersionFor(m, variant)}
		targets = append(targets, tg)
		caseSet[nixrun.Case{Platform: evalPlatform(en.Platform), CudaVersion: tg.cudaVersion}] = true
	}
	var cases []nixrun.Case
	for cs := range caseSet {
		cases = append(cases, cs)
	}
	sort.Slice(cases, func(i, j int) bool {
		return cases[i].Platform+cases[i].CudaVersion < cases[j].Platform+cases[j].CudaVersion
	})
	evals, err := c.runner.EvalPackages(ctx, packagesDir, cases)
	if err != nil {
		return err
	}
	// pname → file
	files := map[string]string{}
	var broken []string
	for file, es := range evals {
		for _, ev := range es {
			if ev.OK && ev.Pname != "" {
				files[ev.Pname] = file
			}
		}
		if _, ok := files[pnameOf(es)]; !ok {
			broken = append(broken, file)
		}
	}
	sort.Strings(broken)
	errors, hintCount := 0, 0
	for _, file := range broken {
		fmt.Fprintf(c.e.stdout, "ERROR %s: does not evaluate under the buildRedist stand-in for any platform (nix-instantiate --eval it for the error)\n", file)
		errors++
	}
	report := func(isErr bool, tg target, decl, needed []string, msg, file string) {
		level := "HINT "
		if isErr {
			level = "ERROR"
			errors++
		} else {
			hintCount++
		}
		line := fmt.Sprintf("%s %s %s %s %s: declared [%s] needed [%s]: %s", level, tg.pkg, tg.platform, tg.variant, tg.version,
			strings.Join(decl, " "), strings.Join(needed, " "), msg)
		if file != "" {
			line += " (" + file + ")"
		}
		fmt.Fprintln(c.e.stdout, line)
	}
	sort.Slice(targets, func(i, j int) bool {
		a, b := targets[i], targets[j]
		return a.pkg+a.platform+a.variant+a.version < b.pkg+b.platform+b.variant+b.version
	})
	for _, tg := range targets {
		opts := buildredist.Options{CudaMajor: strings.Split(tg.cudaVersion, ".")[0], Globstar: c.globstar}
		needed := buildredist.Analyze(tg.features.Tree, opts).Outputs
		file, ok := files[tg.pkg]
		if !ok {
			if c.hints {
				report(false, tg, nil, needed, "no package file in "+packagesDir+" has this pname", "")
			}
			continue
		}
		var ev *nixrun.PackageEval
		for i, x := range evals[file] {
			if x.Platform == evalPlatform(tg.platform) && x.CudaVersion == tg.cudaVersion {
				ev = &evals[file][i]
			}
		}
		if ev == nil || !ev.OK {
			report(true, tg, nil, needed, fmt.Sprintf("%s does not evaluate for %s with CUDA %s under the stand-in (nix-instantiate --eval it for the error)", file, tg.platform, tg.cudaVersion), "")
			continue
		}
		decl := buildredist.Declaration{Outputs: ev.Outputs, IncludeRemoveStubsFromRunpathHook: ev.IncludeRemoveStubsFromRunpathHook, AllowFHSReferences: ev.AllowFHSReferences}
		for _, f := range buildredist.Check(tg.features.Tree, decl, opts) {
			if !f.Error && !c.hints {
				continue
			}
			report(f.Error, tg, ev.Outputs, needed, f.Message, f.File)
		}
	}
	for _, id := range unbuilt {
		fmt.Fprintf(c.e.stdout, "ERROR %s: the archive's detection did not build (see Nix's log above)\n", id)
		errors++
	}
	c.e.log.Info("check-nixpkgs", "archives", len(targets), "errors", errors, "hints", hintCount)
	if errors > 0 {
		return fmt.Errorf("%d error(s): the Nixpkgs builds of these packages would fail", errors)
	}
	return nil
}

func pnameOf(es []nixrun.PackageEval) string {
	for _, ev := range es {
		if ev.OK {
			return ev.Pname
		}
	}
	return ""
}

func (c *checkRun) manifestOf(en nixrun.Entry) nixrun.Manifest {
	for _, m := range c.manifests {
		if m.Version == en.Manifest && m.RedistName == en.Redist {
			return m
		}
	}
	return nixrun.Manifest{Version: en.Manifest}
}

// evalPlatform is the hostRedistSystem a package file is evaluated for:
// source archives build on every platform; x86_64 stands for them.
func evalPlatform(p string) string {
	if p == "source" || p == "linux-all" {
		return "linux-x86_64"
	}
	return p
}
