package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/fixrun"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

// repair repairs the package files after a check (lib/check/fixrun):
// the diff goes to stdout, the files are written unless --dry-run (a
// file changed meanwhile is an error finding and is left alone), then
// what the check of the repaired files still finds. A file that could not
// be written is an error naming it and the system's reason, and fails the
// run (nixpkgscheck.KindNotWritten).
func (c *checkRun) repair(ctx context.Context, packagesDir string, files []string, unread []nixpkgscheck.Finding, plan *nixpkgscheck.Plan, results map[string][]pkgeval.Result) error {
	fix, err := fixrun.Prepare(ctx, packagesDir, files, results, fixrun.Options{Eval: c.eval, Plan: plan, Globstar: c.globstar, Unread: unread, RemoveVendored: c.removeVendored,
		Aliases: c.aliases(packagesDir)})
	if err != nil {
		return err
	}
	if err := fix.WriteDiff(c.e.stdout); err != nil {
		return fmt.Errorf("printing the diff: %w", err)
	}
	findings := fix.Findings
	c.size.files = fix.Checked // the new files count
	if !c.dryRun {
		failed := fix.Write(func(path string) { c.e.log.Info("fixed", "file", path) })
		for _, f := range failed {
			if f.Kind == nixpkgscheck.KindNotWritten || f.Kind == nixpkgscheck.KindRenameNotMoved {
				// On stderr too: stdout may be a file the reader opens later.
				c.e.log.Error("--fix", "file", filepath.Join(packagesDir, f.File), "error", f.Message)
			}
		}
		findings = append(findings, failed...)
		nixpkgscheck.Sort(findings)
	}
	return c.report(findings)
}

// aliases is where --fix adds a renamed package's alias: Nixpkgs'
// aliases.nix in the --nixpkgs tree, else the one beside PACKAGES_DIR
// (which is Nixpkgs' cuda-modules/packages). Nothing outside that tree
// is written.
func (c *checkRun) aliases(packagesDir string) fixrun.Aliases {
	if c.nixpkgs != "" {
		return fixrun.Aliases{Root: c.nixpkgs, File: nixpkgscheck.AliasesFile}
	}
	return fixrun.Aliases{Root: filepath.Dir(packagesDir), File: filepath.Base(nixpkgscheck.AliasesFile)}
}

// validateFix refuses flag combinations --fix cannot honour.
func (cf *checkFlags) validateFix() error {
	switch {
	case *cf.dryRun && !*cf.fix:
		return usageErrorf("--dry-run goes with --fix")
	case *cf.removeVendored && !*cf.fix:
		return usageErrorf("--remove-vendored goes with --fix")
	case *cf.removeVendored && *cf.evalOnly:
		return usageErrorf("--remove-vendored needs the archives: not with --eval-only")
	case *cf.fix && *cf.jsonOut:
		return usageErrorf("--fix prints a diff: not with --json")
	}
	return nil
}
