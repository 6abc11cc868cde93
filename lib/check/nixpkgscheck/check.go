package nixpkgscheck

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/declcheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/sonames"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Levels of a finding: an error fails a Nixpkgs build (or evaluation), a
// warning does not but is most likely a mistake (always printed), a hint
// does not either (printed with --hints), a failure is an archive or
// manifest that could not be checked.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelHint    = "hint"
	LevelFailure = "failure"
)

// Finding is one line of the report.
type Finding struct {
	Level    string   `json:"level"` // error, hint, failure
	Kind     string   `json:"kind"`
	Package  string   `json:"package,omitempty"`
	Platform string   `json:"platform,omitempty"`
	Variant  string   `json:"variant,omitempty"` // the report's spelling (manifest.Variant.String): "None" for none
	Version  string   `json:"version,omitempty"` // the manifest's
	Declared []string `json:"declared,omitempty"`
	Needed   []string `json:"needed,omitempty"`
	Message  string   `json:"message"`
	File     string   `json:"file,omitempty"` // the package file, relative to the packages directory
	Path     string   `json:"path,omitempty"` // the archive's file or directory that makes the difference
	// Files and Count: the package files a notChecked warning is about.
	Files []string `json:"files,omitempty"`
	Count int      `json:"count,omitempty"`
	// RuntimeLoad is what an unreachableRuntimeLoad hint proposes to add.
	RuntimeLoad *RuntimeLoad `json:"runtimeLoad,omitempty"`
}

// KindNotChecked is the warning about the files of a redist whose
// manifests were not given.
const KindNotChecked = "notChecked"

// KindNotWritten is the error of a file check-nixpkgs --fix could not
// write (a read-only file system, a full disk): the file is left as it
// was, and the run fails saying so (Counts.Outcome).
const KindNotWritten = "notWritten"

// KindRenameNotMoved is a renamed package's file check-nixpkgs --fix did
// not move to its new name (lib/check/fixrun says why); it reads as the
// rename hint it answers. As an error (the aliases file or the old file
// left as it was, since the move's other writes failed) it counts as a
// file not written.
const KindRenameNotMoved = "renameNotMoved"

func level(isError bool) string {
	if isError {
		return LevelError
	}
	return LevelHint
}

// Check compares each archive with the package file of its pname, given
// the package files (relative to the packages directory) and pkgeval's
// results for them (one per case of the plan), and returns the report in
// its order (see Sort).
func (p *Plan) Check(files []string, results map[string][]pkgeval.Result) []Finding {
	findings := p.failures()
	findings = append(findings, p.refusedManifests()...)
	findings = append(findings, evalFindings(files, results, p.CaseNames)...)
	findings = append(findings, droppedOutputs(files, results)...)
	findings = append(findings, noManifestFindings(files, results)...)
	findings = append(findings, p.uncheckedFindings(files, results)...)
	byPname, dups := resolvePnames(files, results, p.CaseNames)
	findings = append(findings, dups...)
	pnames := filePnames(files, results)
	steps := p.lineages()
	findings = append(findings, p.lineageFindings(steps, pnames)...)
	findings = append(findings, p.licenceFindings(pnames)...)
	findings = append(findings, p.licenceChangeFindings(steps, pnames)...)
	pv := p.providers()
	lc := p.loadContext()
	var nvidia map[string][]string
	if p.in.Vendored != nil {
		nvidia = p.nvidiaSonames()
	}
	for i := range p.targets {
		tg := p.targets[i]
		if tg.Features != nil {
			findings = append(findings, p.checkTarget(tg, byPname[tg.caseIndex], results, pv)...)
			findings = append(findings, p.loadTarget(&p.targets[i], byPname[tg.caseIndex], results, lc)...)
			findings = append(findings, p.vendoredTarget(tg, byPname[tg.caseIndex], nvidia)...)
		}
	}
	Sort(findings)
	return findings
}

// failures are the archives without a detection.
func (p *Plan) failures() []Finding {
	var out []Finding
	for _, tg := range p.targets {
		if tg.Features == nil {
			msg := "the archive could not be fetched, unpacked or detected (see Nix's log above)"
			if tg.Failure != "" {
				msg = "the archive could not be checked: " + tg.Failure
			}
			out = append(out, Finding{Level: LevelFailure, Kind: "fetchFailure", Package: tg.Package, Platform: tg.Platform, Variant: tg.Variant.String(), Version: tg.Manifest,
				Message: msg})
		}
	}
	return out
}

// refusedManifests are the manifests the parser refused: their archives
// were not checked.
func (p *Plan) refusedManifests() []Finding {
	var out []Finding
	for _, r := range p.in.Refused {
		out = append(out, Finding{Level: LevelFailure, Kind: "manifestRefused", File: r.Path,
			Message: "manifest not read, its archives not checked: " + r.Err.Error()})
	}
	return out
}

// droppedOutputs warns, once per file, of each declared output name
// buildRedist does not know: it keeps only features.BuildRedistOutputs and drops the
// others without a word, so a "sample" (for "samples") or a "man" is
// never built, and nothing says so.
func droppedOutputs(files []string, results map[string][]pkgeval.Result) []Finding {
	var out []Finding
	for _, file := range files {
		var dropped []string
		for _, r := range results[file] {
			if !r.OK() {
				continue
			}
			for _, o := range r.Outputs {
				if !slices.Contains(features.BuildRedistOutputs, o) && !slices.Contains(dropped, o) {
					dropped = append(dropped, o)
				}
			}
		}
		for _, o := range dropped {
			msg := fmt.Sprintf("declares output %q, which buildRedist drops without a word (it keeps only %s)", o, strings.Join(features.BuildRedistOutputs, " "))
			if slices.Contains(features.BuildRedistOutputs, o+"s") {
				msg += fmt.Sprintf("; %q is meant?", o+"s")
			}
			out = append(out, Finding{Level: LevelWarning, Kind: "droppedOutput", File: file, Message: msg})
		}
	}
	return out
}

// resolvePnames maps, per case, each pname to the package file that has
// it. When two files have the same pname, the first (in files' order)
// wins and the other is a duplicatePname hint.
func resolvePnames(files []string, results map[string][]pkgeval.Result, caseNames []string) ([]map[string]string, []Finding) {
	var dups []Finding
	byPname := make([]map[string]string, len(caseNames))
	for i := range caseNames {
		byPname[i] = map[string]string{}
		for _, file := range files {
			r := results[file][i]
			if !r.OK() {
				continue
			}
			if other, dup := byPname[i][r.Pname]; dup {
				dups = append(dups, Finding{Level: LevelHint, Kind: "duplicatePname", File: file,
					Message: fmt.Sprintf("%s and %s both have pname %s for %s; checking %s", other, file, r.Pname, caseNames[i], other)})
				continue
			}
			byPname[i][r.Pname] = file
		}
	}
	return byPname, dups
}

// providers index who provides which soname: per manifest, and across
// all of them (a package of another redist may provide it).
type providers struct {
	perManifest map[[2]string]*sonames.Index
	everything  *sonames.Index
}

func (p *Plan) providers() providers {
	perManifest := map[[2]string][]sonames.Archive{}
	var all []sonames.Archive
	for _, tg := range p.targets {
		if tg.Features == nil {
			continue
		}
		a := sonames.FromFeatures(tg.DetectedArchive.Archive, tg.Features)
		k := [2]string{tg.Redist, tg.Manifest}
		perManifest[k] = append(perManifest[k], a)
		all = append(all, a)
	}
	pv := providers{perManifest: map[[2]string]*sonames.Index{}, everything: sonames.NewIndex(all)}
	for k, as := range perManifest {
		pv.perManifest[k] = sonames.NewIndex(as)
	}
	return pv
}

// checkTarget checks one detected archive against its package file:
// buildRedist's simulation, then the sonames it needs.
func (p *Plan) checkTarget(tg target, byPname map[string]string, results map[string][]pkgeval.Result, pv providers) []Finding {
	opts := buildredist.Options{CudaMajor: manifest.CudaMajor(tg.cudaVersion), Globstar: p.in.Globstar}
	base := Finding{Package: tg.Package, Platform: tg.Platform, Variant: tg.Variant.String(), Version: tg.Manifest,
		Needed: buildredist.Analyze(tg.Features.Tree, opts).Outputs}
	file, ok := byPname[tg.Package]
	if !ok {
		return p.noPackageFile(tg, base, results)
	}
	ev := results[file][tg.caseIndex]
	var out []Finding
	decl := declcheck.Declaration{Outputs: ev.Outputs, IncludeRemoveStubsFromRunpathHook: ev.IncludeRemoveStubsFromRunpathHook, AllowFHSReferences: ev.AllowFHSReferences}
	for _, bf := range declcheck.Check(tg.Features.Tree, decl, opts) {
		if bf.Kind == "unknownOutput" {
			continue // said once per file: droppedOutputs
		}
		f := base
		f.Level, f.Kind, f.Message, f.Path, f.File, f.Declared = level(bf.Error), bf.Kind, bf.Message, bf.File, file, ev.Outputs
		out = append(out, f)
	}
	if !ev.HasDeps {
		return out // its inputs do not evaluate (reported already)
	}
	archive := sonames.FromFeatures(tg.DetectedArchive.Archive, tg.Features)
	needs := sonames.Needs(archive, pv.perManifest[[2]string{tg.Redist, tg.Manifest}], pv.everything)
	in := sonames.Inputs{BuildInputs: ev.BuildInputs, Available: available(ev, byPname, results, tg.caseIndex),
		Ignore: ev.IgnoreMissingDeps, IgnoreAll: ev.IgnoreAllMissingDeps}
	for _, df := range sonames.Compare(needs, in, pv.everything.Known) {
		f := base
		f.Level, f.Kind, f.Message, f.File = level(df.Error), df.Kind, df.Message, file
		out = append(out, f)
	}
	return out
}

// loadTarget is runtimeLoadFindings for an archive with a package file
// whose inputs evaluate.
func (p *Plan) loadTarget(tg *target, byPname map[string]string, results map[string][]pkgeval.Result, lc loadContext) []Finding {
	file, ok := byPname[tg.Package]
	if !ok {
		return nil
	}
	ev := results[file][tg.caseIndex]
	if !ev.HasDeps {
		return nil
	}
	base := Finding{Package: tg.Package, Platform: tg.Platform, Variant: tg.Variant.String(), Version: tg.Manifest}
	return lc.runtimeLoadFindings(tg, base, file, ev, available(ev, byPname, results, tg.caseIndex))
}

// vendoredTarget is vendoredFindings for an archive with a package file,
// when the vendored check is on.
func (p *Plan) vendoredTarget(tg target, byPname map[string]string, nvidia map[string][]string) []Finding {
	file, ok := byPname[tg.Package]
	if p.in.Vendored == nil || !ok {
		return nil
	}
	base := Finding{Package: tg.Package, Platform: tg.Platform, Variant: tg.Variant.String(), Version: tg.Manifest}
	return p.vendoredFindings(tg, base, file, nvidia)
}

// noPackageFile is the hint for an archive no package file has the pname
// of, unless a file that would be its own (pname.nix, pname/package.nix,
// pname/default.nix) does not evaluate: that error is reported already.
func (p *Plan) noPackageFile(tg target, base Finding, results map[string][]pkgeval.Result) []Finding {
	broken := brokenFiles(results, tg.caseIndex)
	for _, own := range []string{tg.Package + ".nix", tg.Package + "/package.nix", tg.Package + "/default.nix"} {
		if slices.Contains(broken, own) {
			return nil
		}
	}
	f := base
	f.Level, f.Kind, f.Message = LevelHint, "noPackageFile", "no package file in "+p.in.PackagesDir+" has this pname"
	if len(broken) > 0 {
		f.Message += " (unless it is one of those that do not evaluate: " + strings.Join(broken, ", ") + ")"
	}
	return []Finding{f}
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
func evalFindings(files []string, results map[string][]pkgeval.Result, caseNames []string) []Finding {
	var out []Finding
	for _, file := range files {
		rs := results[file]
		out = append(out, evalErrors(file, rs, caseNames, "evalError", "does not evaluate: ",
			func(r pkgeval.Result) string { return r.Error })...)
		out = append(out, evalErrors(file, rs, caseNames, "inputsEvalError", "its buildInputs do not evaluate (outputs checked without them): ",
			func(r pkgeval.Result) string { return r.DepsError })...)
	}
	return out
}

// evalErrors groups one file's messages of one kind (message picks it
// from a result) by message, in the order of the cases.
func evalErrors(file string, rs []pkgeval.Result, caseNames []string, kind, prefix string, message func(pkgeval.Result) string) []Finding {
	byMsg := map[string][]string{}
	var order []string
	relevant := 0 // cases of the file's redist (or where that is unknown)
	for i, r := range rs {
		if !r.Skip && !r.NotBuildRedist {
			relevant++
		}
		msg := message(r)
		if msg == "" {
			continue
		}
		if _, seen := byMsg[msg]; !seen {
			order = append(order, msg)
		}
		byMsg[msg] = append(byMsg[msg], caseNames[i])
	}
	var out []Finding
	for _, msg := range order {
		text := prefix + msg
		if len(byMsg[msg]) < relevant {
			text += " (for " + strings.Join(byMsg[msg], "; ") + ")"
		}
		out = append(out, Finding{Level: LevelError, Kind: kind, File: file, Message: text})
	}
	return out
}

// noManifestFindings: the files of a redist no manifest given has were
// skipped in every case, so only their redistName was evaluated: one
// warning per redist says they were not checked, with their count (never
// an error: nothing about their builds is known; the caller fails the run
// when nothing at all was checked, or with --strict). A file that names
// buildRedist but returns something else was not checked at all (a hint).
// Say so rather than let them pass for checked.
func noManifestFindings(files []string, results map[string][]pkgeval.Result) []Finding {
	var out []Finding
	byRedist := map[string][]string{}
	for _, file := range files {
		rs := results[file]
		skipped, notBuildRedist := len(rs) > 0, len(rs) > 0
		for _, r := range rs {
			skipped = skipped && r.Skip
			notBuildRedist = notBuildRedist && r.NotBuildRedist
		}
		if notBuildRedist {
			out = append(out, Finding{Level: LevelHint, Kind: "notBuildRedist", File: file,
				Message: "the file mentions buildRedist but does not return a buildRedist call, so nothing of it was checked"})
		}
		if skipped {
			byRedist[rs[0].RedistName] = append(byRedist[rs[0].RedistName], file)
		}
	}
	redists := make([]string, 0, len(byRedist))
	for r := range byRedist {
		redists = append(redists, r)
	}
	sort.Strings(redists)
	for _, r := range redists {
		fs := byRedist[r]
		out = append(out, Finding{Level: LevelWarning, Kind: KindNotChecked, Count: len(fs), Files: fs,
			Message: fmt.Sprintf("redist %s: %d package file(s) not checked: no manifest of this redist was given "+
				"(give its manifest directory, or name one with --redist %s=DIR)", r, len(fs), r)})
	}
	return out
}
