package fixrun

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

// Aliases is where the package set keeps the aliases of renamed packages:
// the Nixpkgs tree the fix may write in (Root) and the file in it (File,
// slash-separated), Nixpkgs' pkgs/development/cuda-modules/aliases.nix.
type Aliases struct{ Root, File string }

// aliasEdit is the aliases file's text before and after the fix; name is
// the file relative to the packages directory given (for the diff and
// the findings).
type aliasEdit struct {
	name, path string
	old, new   string
	// read: old and new hold the file (it was read once).
	read bool
	// inTree: the packages directory is in the aliases file's tree, as
	// packages (slash-separated, "" for the tree itself): a diff of both
	// is named from the tree, which git apply and patch -p1 take there
	// (they refuse or miss a "../aliases.nix").
	inTree   bool
	packages string
	treeName string
}

// aliasRefusal is why an alias was not added, at a finding's level: a
// hint when there is no aliases file, a warning when there is one the
// fix cannot edit. advice says what to add where.
type aliasRefusal struct{ level, why, advice string }

// addAlias adds the alias of sw (a rename of the cuda redist) to the
// aliases file; nil when the file has it now (added, or the maintainer's
// entry already there), else why not.
func (fr *Fix) addAlias(sw nixpkgscheck.PnameSwitch) *aliasRefusal {
	a := fr.alias
	if a == nil {
		return &aliasRefusal{nixpkgscheck.LevelHint, "no aliases file was given", ""}
	}
	advice := "add " + nixfix.AliasEntry(sw.From, sw.To, sw.Since) + " to " + a.path
	if !a.read {
		if _, err := os.Lstat(a.path); errors.Is(err, fs.ErrNotExist) {
			return &aliasRefusal{nixpkgscheck.LevelHint, "there is no " + a.path, advice}
		}
		if err := notThroughLink(fr.opts.Aliases.Root, fr.opts.Aliases.File); err != nil {
			return &aliasRefusal{nixpkgscheck.LevelWarning, err.Error(), advice}
		}
		data, err := pkgeval.ReadFile(fr.opts.Aliases.Root, fr.opts.Aliases.File)
		if err != nil {
			return &aliasRefusal{nixpkgscheck.LevelWarning, err.Error(), advice}
		}
		a.old, a.new, a.read = string(data), string(data), true
	}
	out, _, err := nixfix.AddAlias(a.new, sw.From, sw.To, sw.Since)
	if err != nil {
		why := refusalReason(err)
		return &aliasRefusal{nixpkgscheck.LevelWarning, a.name + " is not in the shape --fix edits (" + why + ")", advice}
	}
	a.new = out
	return nil
}

// newAliasEdit is the aliases file of opts, named relative to the
// packages directory given; nil when opts names none.
func newAliasEdit(packagesDir string, opts Aliases) *aliasEdit {
	if opts.Root == "" || opts.File == "" {
		return nil
	}
	path := filepath.Join(opts.Root, filepath.FromSlash(opts.File))
	name := path
	if rel, err := filepath.Rel(packagesDir, path); err == nil {
		name = filepath.ToSlash(rel)
	}
	a := &aliasEdit{name: name, path: path, treeName: opts.File}
	root, errRoot := filepath.Abs(opts.Root)
	pkgs, errPkgs := filepath.Abs(packagesDir)
	if rel, err := filepath.Rel(root, pkgs); errRoot == nil && errPkgs == nil && err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		a.inTree = true
		if rel != "." {
			a.packages = filepath.ToSlash(rel) + "/"
		}
	}
	return a
}

// diffNames are the names the diff gives the package files (prefix
// before each) and the aliases file: relative to the aliases file's tree
// when the diff holds the aliases file and the packages directory is in
// that tree, else relative to the packages directory.
func (a *aliasEdit) diffNames() (prefix, aliases string) {
	if !a.changed() {
		return "", ""
	}
	if !a.inTree {
		return "", a.name
	}
	return a.packages, a.treeName
}

// changed says whether the fix changes the aliases file.
func (a *aliasEdit) changed() bool { return a != nil && a.new != a.old }

// validateAlias drops the alias edit, as a refusal, when Nix does not
// parse it.
func (fr *Fix) validateAlias(ctx context.Context, dir string) error {
	if !fr.alias.changed() {
		return nil
	}
	p := filepath.Join(dir, "aliases.nix")
	if err := os.WriteFile(p, []byte(fr.alias.new), 0o644); err != nil {
		return err
	}
	if err := nixfix.Parses(ctx, p); err != nil {
		fr.alias.new = fr.alias.old
		fr.refuse(fr.alias.name, "Nix does not parse the edit: "+strings.ReplaceAll(err.Error(), p, fr.alias.name))
		fr.cancelMoves("its alias was not written")
	}
	return nil
}

// writeAlias writes the aliases file if the fix changes it and it still
// holds the bytes the run read, never through a link. unwritten are the
// new files of moves that were not written: then it is not written at
// all, since an alias of a package without a file would break the old
// name its old file still gives.
func (fr *Fix) writeAlias(written func(path string), unwritten []string) []nixpkgscheck.Finding {
	if !fr.alias.changed() {
		return nil
	}
	if len(unwritten) > 0 {
		return []nixpkgscheck.Finding{{Level: nixpkgscheck.LevelError, Kind: KindNotMoved, File: fr.alias.name,
			Message: "not written, left as it was: " + strings.Join(unwritten, ", ") + " was not written (its ERROR line says why), and its alias would name a package without a file"}}
	}
	err := notThroughLink(fr.opts.Aliases.Root, fr.opts.Aliases.File)
	if err == nil {
		err = replaceIfUnchanged(fr.alias.path, fr.alias.old, fr.alias.new)
	}
	if f, failed := writeFailure(fr.alias.name, err); failed {
		return []nixpkgscheck.Finding{f}
	}
	written(fr.alias.path)
	return nil
}
