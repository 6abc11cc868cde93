package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/stage/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/stage/detect/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// fixRun is one check-nixpkgs --fix: the edits are made in a copy of the
// packages directory, evaluated and checked there, and written back
// (unless --dry-run) only once every edited file parses.
type fixRun struct {
	c           *checkRun
	packagesDir string
	files       []string
	plan        *nixpkgscheck.Plan
	old, new    map[string]string // by file, relative to packagesDir
	refusals    []nixpkgscheck.Finding
}

// repair repairs the package files after a check: the diff goes to stdout,
// then what the check of the repaired files still finds.
func (c *checkRun) repair(ctx context.Context, packagesDir string, files []string, plan *nixpkgscheck.Plan, results map[string][]pkgeval.Result) error {
	// The copies are made from the directory itself, not from a link to
	// it (a walk does not enter a link at its root).
	if resolved, err := filepath.EvalSymlinks(packagesDir); err == nil {
		packagesDir = resolved
	}
	fr := &fixRun{c: c, packagesDir: packagesDir, files: files, plan: plan, old: map[string]string{}, new: map[string]string{}}
	byFile, missing := plan.FixInput(files, results)
	probes, err := fr.probes(ctx, byFile)
	if err != nil {
		return err
	}
	fr.fixFiles(byFile, probes)
	fr.newFiles(missing)
	if err := fr.validate(ctx); err != nil {
		return err
	}
	findings, err := fr.recheck(ctx)
	if err != nil {
		return err
	}
	if err := fr.printDiff(); err != nil {
		return err
	}
	if !c.dryRun {
		if err := fr.write(); err != nil {
			return err
		}
	}
	return c.report(findings)
}

// probes evaluates nixfix.Probe's version of each file, in a copy of
// the packages directory: which of its outputs branches apply per case.
func (fr *fixRun) probes(ctx context.Context, byFile map[string][]nixpkgscheck.FixCase) (map[string][]pkgeval.Result, error) {
	texts := map[string]string{}
	for file := range byFile {
		data, err := os.ReadFile(filepath.Join(fr.packagesDir, filepath.FromSlash(file)))
		if err != nil {
			return nil, fmt.Errorf("fix: %w", err)
		}
		fr.old[file] = string(data)
		if probe, ok := nixfix.Probe(string(data)); ok {
			texts[file] = probe
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	var results map[string][]pkgeval.Result
	err := fr.inCopy(texts, func(dir string) error {
		var err error
		results, err = fr.c.eval.Evaluate(ctx, dir, slices.Sorted(maps.Keys(texts)), fr.plan.Cases)
		return err
	})
	return results, err
}

// fixFiles runs the fixer over every file that evaluated; a file it
// refuses is an error finding saying why.
func (fr *fixRun) fixFiles(byFile map[string][]nixpkgscheck.FixCase, probes map[string][]pkgeval.Result) {
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		cases := fr.cases(byFile[file], probes[file])
		out, err := nixfix.Fix(fr.old[file], cases)
		switch {
		case err != nil:
			fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: "notFixed", File: file, Message: err.Error()})
		case out != fr.old[file]:
			fr.new[file] = out
		}
	}
}

// cases turns a file's check cases into the fixer's.
func (fr *fixRun) cases(fcs []nixpkgscheck.FixCase, probe []pkgeval.Result) []nixfix.Case {
	var out []nixfix.Case
	for _, fc := range fcs {
		r := fc.Result
		c := nixfix.Case{Name: fc.Name, Platform: fc.Platform, CudaVersion: fc.CudaVersion, Options: fr.options(fc.CudaVersion), Outputs: r.Outputs, Hook: r.IncludeRemoveStubsFromRunpathHook, FHS: r.AllowFHSReferences}
		for _, a := range fc.Archives {
			c.Archives = append(c.Archives, nixfix.Archive{Name: a.Platform + " " + a.Variant + " " + a.Manifest, Tree: a.Features.Tree})
		}
		if fc.Case < len(probe) && probe[fc.Case].OK() {
			c.Probe = probe[fc.Case].Outputs
		}
		out = append(out, c)
	}
	return out
}

func (fr *fixRun) options(cudaVersion string) buildredist.Options {
	return buildredist.Options{CudaMajor: manifest.CudaMajor(cudaVersion), Globstar: fr.c.globstar}
}

// validPname is a pname a new file may be named after: no path.
var validPname = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// newFiles writes <pname>.nix for each package no file has (unless a
// file that would be its own exists: it does not evaluate, and says so).
func (fr *fixRun) newFiles(missing []nixpkgscheck.Unpackaged) {
	clashed := map[string]bool{}
	for _, u := range missing {
		name := u.Package + ".nix"
		if !validPname.MatchString(u.Package) {
			fr.refuse(name, "the pname "+u.Package+" is no file name")
			continue
		}
		if fr.hasOwnFile(u.Package) {
			continue
		}
		if _, taken := fr.new[name]; taken || clashed[name] {
			// Two redists without a file for the same pname: one file
			// cannot be both; the maintainer names them.
			fr.refuse(name, "packages "+u.Package+" of two redists ("+u.Redist+" and another) would both be "+name)
			delete(fr.new, name)
			delete(fr.old, name)
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
		fr.old[name], fr.new[name] = "", text
	}
}

// hasOwnFile: a file that would be the package's own exists (it does
// not evaluate, or the package would not be missing).
func (fr *fixRun) hasOwnFile(pname string) bool {
	for _, own := range []string{pname + ".nix", pname + "/package.nix", pname + "/default.nix"} {
		if _, err := os.Lstat(filepath.Join(fr.packagesDir, own)); err == nil {
			return true
		}
	}
	return false
}

func (fr *fixRun) refuse(file, why string) {
	fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: "notFixed", File: file, Message: "not written: " + why})
}

// validate drops, as a refusal, every edit or new file Nix does not
// parse (nix-instantiate --parse): nothing that does not parse is
// written.
func (fr *fixRun) validate(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "crff-fix-*")
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	defer os.RemoveAll(dir)
	for i, file := range slices.Sorted(maps.Keys(fr.new)) {
		p := filepath.Join(dir, fmt.Sprintf("%d.nix", i))
		if err := os.WriteFile(p, []byte(fr.new[file]), 0o644); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if err := nixfix.Parses(ctx, p); err != nil {
			delete(fr.new, file)
			fr.refuse(file, "Nix does not parse the edit: "+strings.ReplaceAll(err.Error(), p, file))
		}
	}
	return nil
}

// recheck checks the edited directory as check-nixpkgs would: its
// findings, with the refusals.
func (fr *fixRun) recheck(ctx context.Context) ([]nixpkgscheck.Finding, error) {
	var findings []nixpkgscheck.Finding
	err := fr.inCopy(fr.new, func(dir string) error {
		files, err := pkgeval.Files(dir)
		if err != nil {
			return err
		}
		results, err := fr.c.eval.Evaluate(ctx, dir, files, fr.plan.Cases)
		if err != nil {
			return err
		}
		findings = append(fr.plan.Check(files, results), fr.refusals...)
		fr.c.size.files = len(files) // the new files count

		return nil
	})
	nixpkgscheck.Sort(findings)
	return findings, err
}

// inCopy runs f on a temporary copy of the packages directory with the
// given files replaced, and removes the copy.
func (fr *fixRun) inCopy(files map[string]string, f func(dir string) error) error {
	dir, err := os.MkdirTemp("", "crff-fix-*")
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := copyTree(fr.packagesDir, dir); err != nil {
		return fmt.Errorf("fix: copying %s: %w", fr.packagesDir, err)
	}
	for file, text := range files {
		if err := notThroughLink(dir, file); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(file)), []byte(text), 0o644); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	return f(dir)
}

// notThroughLink refuses to write file (slash-separated, relative to root)
// when it or a directory on its way is a symbolic link: the write would
// land wherever the link points, outside the packages directory or in a
// file the fix did not read. A file that does not exist yet is fine.
func notThroughLink(root, file string) error {
	p := root
	parts := strings.Split(file, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("fix: %s: %s is a symbolic link; --fix edits no file through a link (fix the file it points to in place)", file, strings.Join(parts[:i+1], "/"))
		}
	}
	return nil
}

// copyTree copies the directories, regular files and symlinks under src
// into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		}
		return nil
	})
}

// printDiff prints the unified diff of every change, by file name.
func (fr *fixRun) printDiff() error {
	for _, file := range slices.Sorted(maps.Keys(fr.new)) {
		if _, err := fmt.Fprint(fr.c.e.stdout, nixfix.Diff(file, fr.old[file], fr.new[file])); err != nil {
			return fmt.Errorf("printing the diff: %w", err)
		}
	}
	return nil
}

// write replaces each changed file (a temporary file renamed over it,
// keeping its mode) and creates the new ones.
func (fr *fixRun) write() error {
	for _, file := range slices.Sorted(maps.Keys(fr.new)) {
		if err := notThroughLink(fr.packagesDir, file); err != nil {
			return err
		}
		path := filepath.Join(fr.packagesDir, filepath.FromSlash(file))
		mode := fs.FileMode(0o644)
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := atomicfile.WritePerm(path, []byte(fr.new[file]), mode); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		fr.c.e.log.Info("fixed", "file", path)
	}
	return nil
}
