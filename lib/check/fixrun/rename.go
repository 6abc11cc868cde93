package fixrun

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// KindNotMoved is a renamed package's file --fix did not move to the new
// name: the pname switch is written in place, so the package set keeps
// the package under its old attribute, and the finding says why (a hint
// when there is no aliases file, a warning otherwise) and what to do.
const KindNotMoved = nixpkgscheck.KindRenameNotMoved

// rename fixes a rename hint of the cuda redist as Nixpkgs does: the
// file OLD.nix moves to NEW.nix with its pname switched by CUDA version
// (the file builds both names' releases), and OLD becomes an alias of
// NEW in the aliases file, silent before the renaming release. When it
// cannot move (the file is not OLD.nix at the top of the packages
// directory, or the alias cannot be written) the switch is written in
// place instead: a whole fix too, under the old attribute, with a
// finding saying why it did not move. When NEW has a file already,
// nothing is written (the switch would make two files of NEW), and a
// warning says what to fold where.
func (fr *Fix) rename(f nixpkgscheck.Finding, sw nixpkgscheck.PnameSwitch) error {
	if _, moved := fr.moves[f.File]; moved || fr.renamedTo[sw.To] {
		return nil // the same rename, found again (in another release)
	}
	text, err := fr.current(f.File)
	if err != nil {
		return err
	}
	out, err := nixfix.SwitchPname(text, sw.From, sw.To, sw.Since)
	if err != nil {
		fr.lineageNotFixed(f, err)
		return nil
	}
	fr.renamedTo[sw.To] = true
	target := sw.To + ".nix"
	if fr.begunMove(f.File, target, out) {
		return fr.finishMove(f, sw, target, out)
	}
	if fr.hasOwnFile(sw.To) || fr.New[target] != "" {
		// The switch in place would make two files of the new name.
		fr.notMoved(f, sw, nixpkgscheck.LevelWarning, "not moved to "+target+" and left as it is: a file of "+sw.To+" exists (a switch here would give two files of "+sw.To+"); fold "+f.File+
			" into it with the pname switch (pname = if cudaAtLeast "+strconv.Quote(sw.Since)+" then "+strconv.Quote(sw.To)+" else "+strconv.Quote(sw.From)+";) and add "+
			nixfix.AliasEntry(sw.From, sw.To, sw.Since)+" to the aliases file, by hand")
		return nil
	}
	refusal := fr.cannotMove(f.File)
	if refusal == nil {
		refusal = fr.addAlias(sw)
	}
	if refusal != nil {
		if out != fr.Old[f.File] {
			fr.New[f.File] = out
		}
		msg := "the pname switch is written in " + f.File + ", not moved to " + target + ": " + refusal.why +
			"; the package stays cudaPackages." + sw.From
		if refusal.advice != "" {
			msg += " (to follow Nixpkgs, move the file to " + target + " and " + refusal.advice + ")"
		}
		fr.notMoved(f, sw, refusal.level, msg)
		return nil
	}
	delete(fr.New, f.File)
	fr.moves[f.File] = target
	fr.Old[target], fr.New[target] = "", out
	return nil
}

// begunMove says whether an earlier run began moving file to target: it
// wrote target, at the top of the packages directory beside file, with
// the text this move would give it (out), and not the alias, so file
// was kept.
func (fr *Fix) begunMove(file, target, out string) bool {
	if !atTop(file) || notThroughLink(fr.PackagesDir, target) != nil {
		return false
	}
	return stillHolds(filepath.Join(fr.PackagesDir, target), out) == nil
}

// finishMove finishes the move an earlier run began: the alias is added
// and file removed, target is left as it is. Without the alias nothing
// is written (the switch in file too would make two files of both
// names), and a finding says what to add.
func (fr *Fix) finishMove(f nixpkgscheck.Finding, sw nixpkgscheck.PnameSwitch, target, out string) error {
	if refusal := fr.addAlias(sw); refusal != nil {
		msg := target + " holds the pname switch already (a move begun by an earlier --fix), but " + refusal.why + "; " + f.File + " is kept"
		if refusal.advice != "" {
			msg += " (to finish the move, remove " + f.File + " and " + refusal.advice + ")"
		}
		fr.notMoved(f, sw, refusal.level, msg)
		return nil
	}
	delete(fr.New, f.File)
	fr.moves[f.File] = target
	fr.present[target] = out
	return nil
}

// hasPresent says whether file is the new file of a move an earlier run
// began.
func (fr *Fix) hasPresent(file string) bool {
	_, ok := fr.present[file]
	return ok
}

// cannotMove is why file cannot move: it is not at the top of the
// packages directory (a file of its own directory, which holds more).
func (fr *Fix) cannotMove(file string) *aliasRefusal {
	if !atTop(file) {
		return &aliasRefusal{level: nixpkgscheck.LevelWarning, why: file + " is not at the top of the packages directory"}
	}
	return nil
}

// target is where file's text is in the fix: the file it moves to, or
// itself.
func (fr *Fix) target(file string) string {
	if to, ok := fr.moves[file]; ok {
		return to
	}
	return file
}

// movedFrom is the file that moves to file, "" for none.
func (fr *Fix) movedFrom(file string) string {
	for from, to := range fr.moves {
		if to == file {
			return from
		}
	}
	return ""
}

// unwrittenMoves are the new files of moves that are not among done
// (the files written), sorted.
func (fr *Fix) unwrittenMoves(done map[string]bool) []string {
	var out []string
	for _, from := range slices.Sorted(maps.Keys(fr.moves)) {
		if to := fr.moves[from]; !done[to] {
			out = append(out, to)
		}
	}
	return out
}

// cancelMoves puts the files of every move back with the edits the fix
// made to them (the new files are dropped): a move without its alias
// would cost the package set the old name.
func (fr *Fix) cancelMoves(why string) {
	for _, from := range slices.Sorted(maps.Keys(fr.moves)) {
		to := fr.moves[from]
		if fr.hasPresent(to) {
			// The earlier run's file stays, with its edits; so does from.
			delete(fr.present, to)
			delete(fr.moves, from)
			continue
		}
		if text, ok := fr.New[to]; ok && text != fr.Old[from] {
			fr.New[from] = text
		}
		delete(fr.New, to)
		delete(fr.Old, to)
		delete(fr.moves, from)
		fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelWarning, Kind: KindNotMoved, File: from,
			Message: "not moved to " + to + ": " + why + "; its other edits are made in place"})
	}
}

// removeMoved removes each moved file, once its new file and the aliases
// file are written (ok), if it still holds the bytes the run read, never
// through a link; what could not be removed is an error finding.
func (fr *Fix) removeMoved(ok func(from, to string) bool, written func(path string)) []nixpkgscheck.Finding {
	var failed []nixpkgscheck.Finding
	for _, from := range slices.Sorted(maps.Keys(fr.moves)) {
		if !ok(from, fr.moves[from]) {
			failed = append(failed, nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: KindNotMoved, File: from,
				Message: "not removed: " + fr.moves[from] + " or the alias was not written (above); " + from + " is kept, so the package set keeps its name (check-nixpkgs --fix again finishes the move)"})
			continue
		}
		path := filepath.Join(fr.PackagesDir, filepath.FromSlash(from))
		err := notThroughLink(fr.PackagesDir, from)
		if err == nil {
			err = stillHolds(path, fr.Old[from])
		}
		if err == nil {
			if err = os.Remove(path); err != nil {
				err = &writeError{"removing " + path, err}
			}
		}
		if f, bad := writeFailure(from, err); bad {
			failed = append(failed, f)
			continue
		}
		written(path)
	}
	return failed
}

// lineageNotFixed is the warning of a lineage hint whose edit err refused.
func (fr *Fix) lineageNotFixed(f nixpkgscheck.Finding, err error) {
	why := refusalReason(err)
	fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelWarning, Kind: KindLineageNotFixed, File: f.File,
		Message: f.Kind + " hint not written, the file's other fixes made: " + why})
}

// refusalReason is why an edit was not made: a refusal's reason alone
// (its Error adds "not fixed (the file is left alone)", which a finding
// about one proposal of a file fixed otherwise must not say), else err.
func refusalReason(err error) string {
	if r := (*nixfix.Refusal)(nil); errors.As(err, &r) {
		return r.Reason
	}
	return err.Error()
}

// atTop says whether file (slash-separated) is at the top of the
// packages directory, where a package's file is named after it; a file
// in a directory of its own does not move.
func atTop(file string) bool { return filepath.Dir(filepath.FromSlash(file)) == "." }

// notMoved is the renameNotMoved finding, at level, of the file of a
// rename hint f (sw) that did not move.
func (fr *Fix) notMoved(f nixpkgscheck.Finding, sw nixpkgscheck.PnameSwitch, level, msg string) {
	fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: level, Kind: KindNotMoved, File: f.File, Package: sw.From, Version: f.Version, Message: msg})
}
