package nixdriver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
)

// addLocalArchives puts the archives of file:// base URLs into the store
// as the fixed outputs their fetches would produce (nix-store --add-fixed
// sha256): no fetch then runs, so the sandbox needs no view of the
// directory, and remote builders get the archives with the rest of the
// build's inputs. Each archive's relative path and sha256 are its entry's,
// as nix/cli.nix lists it. An archive that is missing or whose bytes do
// not match the manifest is left out with a warning; its fetch then
// fails, naming it.
func (r *Runner) addLocalArchives(ctx context.Context, plan *Plan, log *slog.Logger) error {
	var srcs []string
	for _, e := range plan.Entries() {
		srcs = append(srcs, e.Fetch.Out)
	}
	valid, err := r.Valid(ctx, srcs)
	if err != nil {
		return err
	}
	var links symlinkedArchives
	defer links.remove()
	for _, m := range plan.Manifests {
		base, ok := LocalBase(m.BaseURL)
		if !ok {
			continue
		}
		var files, want []string
		for _, e := range m.Entries {
			if valid[e.Fetch.Out] {
				continue
			}
			file, why, err := localArchive(base, e, &links)
			if err != nil {
				log.Warn(why+"; its fetch will fail", "entry", e.ID(), "error", err)
				continue
			}
			files, want = append(files, file), append(want, e.Fetch.Out)
		}
		// Manifest by manifest: one whose archives Nix cannot take
		// fails alone, named; its fetches then fail, the others build.
		added, err := r.AddFixed(ctx, files)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			log.Error("the local archives of a manifest could not be added to the store; its fetches will fail", "manifest", m.Path, "archives", len(files), "error", err)
			continue
		}
		for i := range added {
			if added[i] != want[i] {
				log.Warn("archive added under another store path than its fetch's", "file", files[i], "added", added[i], "fetch", want[i])
			}
		}
	}
	return nil
}

// localArchive is the file of the entry's archive under base, checked
// against the entry's sha256, as a path --add-fixed can take; or what is
// wrong with it, and why.
func localArchive(base string, e Entry, links *symlinkedArchives) (file, why string, err error) {
	rel := filepath.FromSlash(e.RelativePath)
	if !filepath.IsLocal(rel) {
		// The walker and the Go parser refuse such paths: a bug if seen.
		return "", "local archive outside its directory", fmt.Errorf("relative path %q", e.RelativePath)
	}
	file = filepath.Join(base, rel)
	sum, err := sha256File(file)
	if err != nil {
		return "", "local archive unreadable", err
	}
	if sum != e.SHA256 {
		return "", "local archive does not match the manifest's sha256",
			fmt.Errorf("%s has sha256 %s, the manifest %s", file, sum, e.SHA256)
	}
	if file, err = links.regular(file); err != nil {
		return "", "local archive cannot be added to the store", err
	}
	return file, "", nil
}

// symlinkedArchives stands in for local archives that are symlinks: Nix
// 2.8 adds a symlink's own NAR, not its target's bytes, under the
// file's hash (nix-store --add-fixed fails: "ca hash mismatch").
type symlinkedArchives struct {
	dir string // made at the first symlink that needs it
}

// regular returns a path to the bytes of file under file's base name
// (the store path's name) that is no symlink: file itself; the symlink's
// target when it has the same name; else a hard link to the target in a
// temporary directory (a copy when the target is on another file
// system).
func (s *symlinkedArchives) regular(file string) (string, error) {
	fi, err := os.Lstat(file)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return file, err
	}
	target, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", err
	}
	if filepath.Base(target) == filepath.Base(file) {
		return target, nil
	}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "crff-local-archives-"); err != nil {
			return "", err
		}
	}
	dir, err := os.MkdirTemp(s.dir, "")
	if err != nil {
		return "", err
	}
	named := filepath.Join(dir, filepath.Base(file))
	if os.Link(target, named) == nil {
		return named, nil
	}
	return named, copyFile(target, named)
}

func (s *symlinkedArchives) remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

func copyFile(src, dst string) error {
	in, err := inputfile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

// LocalBase is the directory of a file:// base URL on this machine.
func LocalBase(url string) (string, bool) {
	rest, ok := strings.CutPrefix(url, "file://")
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "localhost")
	if !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}

func sha256File(path string) (string, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
