package fixrun

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Options are what a fix needs besides the packages directory.
type Options struct {
	// Eval evaluates package files (the probes and the recheck).
	Eval *pkgeval.Evaluator
	// Plan is the check's plan: its cases and rules.
	Plan *nixpkgscheck.Plan
	// Globstar is check-nixpkgs --globstar (buildRedist's rules).
	Globstar bool
	// Unread are the findings of the files the listing could not read:
	// they are in the recheck's findings too.
	Unread []nixpkgscheck.Finding
	// RemoveVendored is check-nixpkgs --remove-vendored: each file gets a
	// postPatch removing the vendored libraries it keeps.
	RemoveVendored bool
	// Aliases is where a renamed package's alias goes (its zero value:
	// nowhere, and no alias is proposed).
	Aliases Aliases
}

// Fix is a prepared fix: every changed and new file's text before and
// after (by file, relative to PackagesDir; "" before for a new file),
// and what the check of the fixed copy still finds, with the files the
// fix refused to change.
type Fix struct {
	PackagesDir string
	Old, New    map[string]string
	Findings    []nixpkgscheck.Finding
	// Checked is how many package files the check of the fixed copy
	// evaluated (new files included), for the run's summary.
	Checked int

	opts     Options
	refusals []nixpkgscheck.Finding
	// vendored are, with RemoveVendored, the vendored libraries each file
	// keeps (by file).
	vendored map[string][]string
	// runpaths are the directories each file should add to
	// appendRunpaths for its run-time loads (by file).
	runpaths map[string][]nixfix.Runpath
	// alias is the aliases file's edit (nil without opts.Aliases).
	alias *aliasEdit
	// moves are the files of renamed packages that move to their new
	// name (old file to new file, both relative to PackagesDir): the new
	// file's text is in New, the old file is removed once it is written.
	moves map[string]string
	// renamedTo are the new names of renamed packages whose file switches
	// its pname (moved or not): no new file is written for them.
	renamedTo map[string]bool
	// present are the new files of moves an earlier run began (it wrote
	// the new file, not the alias), by name, with the text they hold:
	// this run finishes the move without writing them.
	present map[string]string
}

// Prepare works out the fix of the package files (files, relative to
// packagesDir) given their evaluation for the plan's cases (results), in
// a copy of the directory; nothing in packagesDir is written.
func Prepare(ctx context.Context, packagesDir string, files []string, results map[string][]pkgeval.Result, opts Options) (*Fix, error) {
	alias := newAliasEdit(packagesDir, opts.Aliases)
	// The copies are made from the directory itself, not from a link to
	// it (a walk does not enter a link at its root).
	if resolved, err := filepath.EvalSymlinks(packagesDir); err == nil {
		packagesDir = resolved
	}
	fr := newFix(packagesDir, opts, alias)
	findings := opts.Plan.Check(files, results)
	if opts.RemoveVendored {
		fr.vendored = nixpkgscheck.KeptVendored(findings)
	}
	fr.runpaths = runpathsByFile(findings)
	byFile, missing := opts.Plan.FixInput(files, results)
	probes, err := fr.probes(ctx, byFile)
	if err != nil {
		return nil, err
	}
	fr.fixFiles(byFile, probes)
	if err := fr.lineageFixes(opts.Plan.Check(files, results)); err != nil {
		return nil, err
	}
	fr.newFiles(missing)
	if err := fr.validate(ctx); err != nil {
		return nil, err
	}
	if fr.Findings, err = fr.recheck(ctx); err != nil {
		return nil, err
	}
	return fr, nil
}

// newFix is a fix of packagesDir that has made no change yet.
func newFix(packagesDir string, opts Options, alias *aliasEdit) *Fix {
	return &Fix{PackagesDir: packagesDir, Old: map[string]string{}, New: map[string]string{}, opts: opts, alias: alias,
		moves: map[string]string{}, renamedTo: map[string]bool{}, present: map[string]string{}}
}

// Files are the changed and new files, sorted (a moved file's new name;
// the old is in Moves).
func (fr *Fix) Files() []string { return slices.Sorted(maps.Keys(fr.New)) }

// Moves are the files that move to a new name, by their old name.
func (fr *Fix) Moves() map[string]string { return maps.Clone(fr.moves) }

// WriteDiff writes the unified diff of every change to w, by file name
// (a move as git writes a rename), the aliases file's last. The names
// are relative to the packages directory, or, when the aliases file
// changes too, to the tree holding both (the aliases file's: its
// cuda-modules directory, or the --nixpkgs tree), so that git apply and
// patch -p1 take the whole diff there.
func (fr *Fix) WriteDiff(w io.Writer) error {
	prefix, aliasName := fr.alias.diffNames()
	for _, file := range fr.Files() {
		diff := nixfix.Diff(prefix+file, fr.Old[file], fr.New[file])
		if from := fr.movedFrom(file); from != "" && !fr.hasPresent(file) {
			diff = nixfix.RenameDiff(prefix+from, prefix+file, fr.Old[from], fr.New[file])
		}
		if _, err := io.WriteString(w, diff); err != nil {
			return err
		}
	}
	// A move an earlier run began: the old file goes.
	for _, from := range slices.Sorted(maps.Keys(fr.moves)) {
		if fr.hasPresent(fr.moves[from]) {
			if _, err := io.WriteString(w, nixfix.DeleteDiff(prefix+from, fr.Old[from])); err != nil {
				return err
			}
		}
	}
	if fr.alias.changed() {
		_, err := io.WriteString(w, nixfix.Diff(aliasName, fr.alias.old, fr.alias.new))
		return err
	}
	return nil
}

// probes evaluates nixfix.Probe's version of each file, in a copy of
// the packages directory: which of its outputs branches apply per case.
func (fr *Fix) probes(ctx context.Context, byFile map[string][]nixpkgscheck.FixCase) (map[string][]pkgeval.Result, error) {
	texts := map[string]string{}
	for file := range byFile {
		data, err := pkgeval.ReadFile(fr.PackagesDir, file)
		if err != nil {
			return nil, fmt.Errorf("fix: %w", err)
		}
		fr.Old[file] = string(data)
		if probe, ok := nixfix.Probe(string(data)); ok {
			texts[file] = probe
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	var results map[string][]pkgeval.Result
	err := fr.inCopy(texts, nil, func(dir string) error {
		var err error
		results, err = fr.opts.Eval.Evaluate(ctx, dir, slices.Sorted(maps.Keys(texts)), fr.opts.Plan.Cases)
		return err
	})
	return results, err
}

// fixFiles runs the fixer over every file that evaluated; a file it
// refuses is an error finding saying why.
func (fr *Fix) fixFiles(byFile map[string][]nixpkgscheck.FixCase, probes map[string][]pkgeval.Result) {
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		cases := fr.cases(byFile[file], probes[file])
		out, err := nixfix.Fix(fr.Old[file], cases)
		if err == nil {
			out = fr.removeVendored(file, out)
			out = fr.addRunpaths(file, out)
		}
		switch {
		case err != nil:
			fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: "notFixed", File: file, Message: err.Error()})
		case out != fr.Old[file]:
			fr.New[file] = out
		}
	}
}

// KindVendoredNotRemoved is a file --remove-vendored could not add its
// removal to (it has a postPatch already, say): a warning, and the file's
// other fixes are still made.
const KindVendoredNotRemoved = "vendoredNotRemoved"

// removeVendored adds to a file's (fixed) text the postPatch removing
// the vendored libraries it keeps (--remove-vendored). A refusal is a
// warning and leaves the text as it was: the removal is a proposal, and
// must not cost the file its fixes of outputs.
func (fr *Fix) removeVendored(file, text string) string {
	paths := fr.vendored[file]
	if len(paths) == 0 {
		return text
	}
	out, err := nixfix.ProposeRemovals(text, paths)
	return fr.proposal(file, text, out, err, KindVendoredNotRemoved, "vendored libraries not removed")
}

// proposal is the text a proposal (an addition the file's build does not
// need) made of a file's text, or, when it was refused, the text as it
// was and a warning of kind saying what was not done and why: a
// proposal must not cost the file its other fixes.
func (fr *Fix) proposal(file, text, out string, err error, kind, notDone string) string {
	if err == nil {
		return out
	}
	why := refusalReason(err)
	fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelWarning, Kind: kind, File: file,
		Message: notDone + ", the file's other fixes made: " + why})
	return text
}

// cases turns a file's check cases into the fixer's.
func (fr *Fix) cases(fcs []nixpkgscheck.FixCase, probe []pkgeval.Result) []nixfix.Case {
	var out []nixfix.Case
	for _, fc := range fcs {
		r := fc.Result
		c := nixfix.Case{Name: fc.Name, Platform: fc.Platform, CudaVersion: fc.CudaVersion, Options: fr.options(fc.CudaVersion), Outputs: r.Outputs, Hook: r.IncludeRemoveStubsFromRunpathHook, FHS: r.AllowFHSReferences}
		for _, a := range fc.Archives {
			c.Archives = append(c.Archives, nixfix.Archive{Name: a.Platform + " " + a.Variant.String() + " " + a.Manifest, Tree: a.Features.Tree})
		}
		if fc.Case < len(probe) && probe[fc.Case].OK() {
			c.Probe = probe[fc.Case].Outputs
		}
		out = append(out, c)
	}
	return out
}

func (fr *Fix) options(cudaVersion string) buildredist.Options {
	return buildredist.Options{CudaMajor: manifest.CudaMajor(cudaVersion), Globstar: fr.opts.Globstar}
}

// validPname is a pname a new file may be named after: no path.
var validPname = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// MaxPnameLength bounds the pname a new file is named after: with ".nix"
// it stays under the 255 bytes a file name may have on Linux file systems.
// NVIDIA's longest is about 30 bytes. A longer one is refused alone, by
// name; the other new files are still written.
const MaxPnameLength = 200

// newFiles writes <pname>.nix for each package no file has (unless a
// file that would be its own exists: it does not evaluate, and says so).
func (fr *Fix) newFiles(missing []nixpkgscheck.Unpackaged) {
	clashed := map[string]bool{}
	for _, u := range missing {
		name := u.Package + ".nix"
		if len(u.Package) > MaxPnameLength {
			// Named by its start: the whole name would be a line of 10 KB.
			fr.refuse(strings.ToValidUTF8(u.Package[:64], "")+"….nix", fmt.Sprintf("the pname is %d bytes long, over the %d a new file's name may have", len(u.Package), MaxPnameLength))
			continue
		}
		if !validPname.MatchString(u.Package) {
			fr.refuse(name, "the pname "+u.Package+" is no file name")
			continue
		}
		if fr.hasOwnFile(u.Package) || fr.renamedTo[u.Package] {
			continue
		}
		if _, taken := fr.New[name]; taken || clashed[name] {
			// Two redists without a file for the same pname: one file
			// cannot be both; the maintainer names them.
			fr.refuse(name, "packages "+u.Package+" of two redists ("+u.Redist+" and another) would both be "+name)
			delete(fr.New, name)
			delete(fr.Old, name)
			clashed[name] = true
			continue
		}
		var archives []nixfix.NewArchive
		for i, a := range u.Archives {
			archives = append(archives, nixfix.NewArchive{Platform: nixpkgscheck.EvalPlatform(a.Platform), Variant: a.Variant, Options: fr.options(u.CudaVersions[i]), Tree: a.Features.Tree})
		}
		text, err := nixfix.NewFile(u.Redist, u.Package, archives)
		if err != nil {
			fr.refuse(name, err.Error())
			continue
		}
		fr.Old[name], fr.New[name] = "", text
	}
}

// hasOwnFile: a file that would be the package's own exists (it does
// not evaluate, or the package would not be missing).
func (fr *Fix) hasOwnFile(pname string) bool {
	for _, own := range []string{pname + ".nix", pname + "/package.nix", pname + "/default.nix"} {
		if _, err := os.Lstat(filepath.Join(fr.PackagesDir, own)); err == nil {
			return true
		}
	}
	return false
}

func (fr *Fix) refuse(file, why string) {
	fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: "notFixed", File: file, Message: "not written: " + why})
}

// validate drops, as a refusal, every edit or new file Nix does not
// parse (nix-instantiate --parse): nothing that does not parse is
// written.
func (fr *Fix) validate(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "crff-fix-*")
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	defer os.RemoveAll(dir)
	for i, file := range fr.Files() {
		p := filepath.Join(dir, fmt.Sprintf("%d.nix", i))
		if err := os.WriteFile(p, []byte(fr.New[file]), 0o644); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if err := nixfix.Parses(ctx, p); err != nil {
			delete(fr.New, file)
			fr.refuse(file, "Nix does not parse the edit: "+strings.ReplaceAll(err.Error(), p, file))
			if from := fr.movedFrom(file); from != "" {
				// The old file stays as it is, and so does the package set.
				delete(fr.moves, from)
				fr.alias.new = fr.alias.old
			}
		}
	}
	if err := fr.validateAlias(ctx, dir); err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	return nil
}

// recheck checks the edited directory as check-nixpkgs would: its
// findings, with the refusals and the files the listing left unread.
func (fr *Fix) recheck(ctx context.Context) ([]nixpkgscheck.Finding, error) {
	var findings []nixpkgscheck.Finding
	err := fr.inCopy(fr.New, slices.Collect(maps.Keys(fr.moves)), func(dir string) error {
		listing, err := pkgeval.Files(dir)
		if err != nil {
			return err
		}
		results, err := fr.opts.Eval.Evaluate(ctx, dir, listing.Files, fr.opts.Plan.Cases)
		if err != nil {
			return err
		}
		// The copy's own unread files are the original's (the copy holds
		// no FIFO or device): the original listing's are the ones shown.
		plan := fr.opts.Plan.WithReadFile(func(file string) ([]byte, error) { return pkgeval.ReadFile(dir, file) })
		findings = append(append(plan.Check(listing.Files, results), fr.refusals...), fr.opts.Unread...)
		fr.Checked = len(listing.Files)
		return nil
	})
	nixpkgscheck.Sort(findings)
	return findings, err
}
