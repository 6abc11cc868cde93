package fixrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// KindChanged is a file --fix did not write because it no longer held
// the bytes the run read (a maintainer's edit meanwhile), or because it
// appeared meanwhile where a new file was to go.
const KindChanged = "changedDuringFix"

// Write replaces each changed file and creates each new one, file by
// file: the new text goes to a temporary file beside it, and just before
// the rename the file is read again and compared with the bytes the run
// read (a new file must still not exist: it is linked in, which fails if
// it does). A file that differs is left alone and is an error finding
// naming it; a file that cannot be written (a read-only file system, a
// full disk) is one too, of kind nixpkgscheck.KindNotWritten, naming the
// step and the system's reason; every other file is still written.
// The aliases file a rename's alias goes to is written next, by the
// same rules, only if every move's new file is in place (written now, or
// by the earlier run whose move this one finishes, and unchanged), and
// last the file a rename moves away from is removed.
// written gets the path of each file written or removed.
func (fr *Fix) Write(written func(path string)) []nixpkgscheck.Finding {
	var failed []nixpkgscheck.Finding
	done := map[string]bool{}
	for _, file := range fr.Files() {
		path := filepath.Join(fr.PackagesDir, filepath.FromSlash(file))
		err := notThroughLink(fr.PackagesDir, file)
		if err == nil {
			err = replaceIfUnchanged(path, fr.Old[file], fr.New[file])
		}
		if f, bad := writeFailure(file, err); bad {
			failed = append(failed, f)
		} else {
			done[file] = true
			written(path)
		}
	}
	for _, to := range slices.Sorted(maps.Keys(fr.present)) {
		if _, edited := fr.New[to]; edited {
			continue // written, or not, above
		}
		// The new file of a move begun earlier must still be as it was.
		err := stillHolds(filepath.Join(fr.PackagesDir, filepath.FromSlash(to)), fr.present[to])
		if f, bad := writeFailure(to, err); bad {
			failed = append(failed, f)
		} else {
			done[to] = true
		}
	}
	aliasFailed := fr.writeAlias(written, fr.unwrittenMoves(done))
	failed = append(failed, aliasFailed...)
	// A moved file goes last, and only when its new file and its alias
	// are in place: the package set never loses the old name.
	return append(failed, fr.removeMoved(func(_, to string) bool { return done[to] && len(aliasFailed) == 0 }, written)...)
}

// writeFailure is the error finding of a file a write left alone (err
// from replaceIfUnchanged); false when err is nil.
func writeFailure(file string, err error) (nixpkgscheck.Finding, bool) {
	var changed *changedError
	switch {
	case errors.As(err, &changed):
		return nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: KindChanged, File: file,
			Message: "not written: " + changed.why + " since --fix read it; left as it is (run check-nixpkgs --fix again)"}, true
	case err != nil:
		return nixpkgscheck.Finding{Level: nixpkgscheck.LevelError, Kind: nixpkgscheck.KindNotWritten, File: file,
			Message: "not written, left as it was: " + err.Error()}, true
	}
	return nixpkgscheck.Finding{}, false
}

// changedError: the file on disk is not what the run read.
type changedError struct{ why string }

func (e *changedError) Error() string { return e.why }

// replaceIfUnchanged writes text to path if path still holds old (old ""
// for a file that must not exist), keeping its mode. A failure of the
// system says which step failed, on which file, and why (writeError).
func replaceIfUnchanged(path, old, text string) error {
	mode := fs.FileMode(0o644)
	if old != "" {
		st, err := os.Lstat(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return &changedError{"it was removed"}
			}
			return err
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".crff-fix-*")
	if err != nil {
		return &writeError{"creating a temporary file in " + filepath.Dir(path), err}
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(text)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &writeError{"writing its new text to " + tmp.Name(), err}
	}
	if old == "" {
		// link(2) fails when path exists: no file that appeared
		// meanwhile is replaced.
		if err := os.Link(tmp.Name(), path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &changedError{"a file of this name appeared"}
			}
			return &writeError{"creating " + path, err}
		}
		return nil
	}
	// The comparison, right before the rename.
	if err := stillHolds(path, old); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &writeError{"renaming its new text over " + path, err}
	}
	return nil
}

// writeError is a write the system refused: the step, on which file, and
// the system's reason alone (ENOSPC's "no space left on device", EROFS's
// "read-only file system"), not the operation and path again.
type writeError struct {
	step string
	err  error
}

func (e *writeError) Error() string {
	reason := e.err.Error()
	var errno syscall.Errno
	if errors.As(e.err, &errno) {
		reason = errno.Error()
	}
	return e.step + ": " + reason
}

func (e *writeError) Unwrap() error { return e.err }

// stillHolds reads path (at most one byte more than old, not opening
// anything but a regular file) and says whether it holds old.
func stillHolds(path, old string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &changedError{"it was removed"}
		}
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return &changedError{"it became something other than a regular file"}
	}
	now, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(now, []byte(old)) {
		return &changedError{"it changed"}
	}
	return nil
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
