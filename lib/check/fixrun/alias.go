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

// KindAliasNotWritten is the alias of a renamed package --fix did not
// write: a warning when the aliases file is not in the shape it edits
// (or is a link, or unreadable), a hint when there is none. Either says
// the entry to add and where.
const KindAliasNotWritten = "aliasNotWritten"

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
	// done are the old names handled already (one finding per rename,
	// however many files have it).
	done map[string]bool
}

// addAlias adds old's entry, pointing to new, to the aliases file (a
// rename hint of the cuda redist), or says why not and what to add where.
func (fr *Fix) addAlias(f nixpkgscheck.Finding, old, new string) {
	a := fr.alias
	if a == nil || a.done[old] {
		return
	}
	a.done[old] = true
	advice := "add " + nixfix.AliasEntry(old, new) + " to the attribute set builtins.mapAttrs mkRenamed maps in " + a.path
	refuse := func(level, why string) {
		fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: level, Kind: KindAliasNotWritten, File: a.name, Package: old, Version: f.Version,
			Message: "alias of " + old + " not written: " + why + "; " + advice})
	}
	if a.new == "" && a.old == "" {
		if _, err := os.Lstat(a.path); errors.Is(err, fs.ErrNotExist) {
			refuse(nixpkgscheck.LevelHint, "no "+a.path)
			return
		}
		if err := notThroughLink(fr.opts.Aliases.Root, fr.opts.Aliases.File); err != nil {
			refuse(nixpkgscheck.LevelWarning, err.Error())
			return
		}
		data, err := pkgeval.ReadFile(fr.opts.Aliases.Root, fr.opts.Aliases.File)
		if err != nil {
			refuse(nixpkgscheck.LevelWarning, err.Error())
			return
		}
		a.old, a.new = string(data), string(data)
	}
	out, _, err := nixfix.AddAlias(a.new, old, new)
	if r := (*nixfix.Refusal)(nil); errors.As(err, &r) {
		refuse(nixpkgscheck.LevelWarning, "the file is not in the shape --fix edits ("+r.Reason+"), left alone")
		return
	}
	a.new = out
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
	return &aliasEdit{name: name, path: path, done: map[string]bool{}}
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
	}
	return nil
}

// writeAlias writes the aliases file if the fix changes it and it still
// holds the bytes the run read, never through a link.
func (fr *Fix) writeAlias(written func(path string)) []nixpkgscheck.Finding {
	if !fr.alias.changed() {
		return nil
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
