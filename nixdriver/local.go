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

	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// AddLocalArchives puts the archives of file:// base URLs into the store
// as the fixed outputs their fetches would produce (nix-store --add-fixed
// sha256): no fetch then runs, so the sandbox needs no view of the
// directory, and remote builders get the archives with the rest of the
// build's inputs. parsed holds each manifest as the Go parser reads it, by
// path. An archive that is missing or whose bytes do not match the
// manifest is left out with a warning; its fetch then fails, naming it.
func (r *Runner) AddLocalArchives(ctx context.Context, plan *Plan, parsed map[string]*manifest.Manifest, log *slog.Logger) error {
	var srcs []string
	for _, e := range plan.Entries() {
		srcs = append(srcs, e.Src)
	}
	valid, err := r.Valid(ctx, srcs)
	if err != nil {
		return err
	}
	var files, want []string
	var links symlinkedArchives
	defer links.remove()
	for _, m := range plan.Manifests {
		base, ok := LocalBase(m.BaseURL)
		if !ok {
			continue
		}
		mf := parsed[m.Path]
		if mf == nil {
			return fmt.Errorf("manifest %s: not parsed before adding its local archives", m.Path)
		}
		for _, e := range m.Entries {
			if valid[e.Src] {
				continue
			}
			a, ok := mf.Archive(e.Package, e.Platform, e.Variant)
			if !ok {
				return fmt.Errorf("entry %s: not in manifest %s as the Go parser reads it", e.ID(), m.Path)
			}
			file := filepath.Join(base, filepath.FromSlash(a.RelativePath))
			sum, err := sha256File(file)
			if err != nil {
				log.Warn("local archive unreadable; its fetch will fail", "entry", e.ID(), "error", err)
				continue
			}
			if sum != a.SHA256 {
				log.Warn("local archive does not match the manifest's sha256; its fetch will fail", "entry", e.ID(), "file", file, "sha256", sum, "manifest", a.SHA256)
				continue
			}
			if file, err = links.regular(file); err != nil {
				log.Warn("local archive cannot be added to the store; its fetch will fail", "entry", e.ID(), "error", err)
				continue
			}
			files, want = append(files, file), append(want, e.Src)
		}
	}
	added, err := r.AddFixed(ctx, files)
	if err != nil {
		return err
	}
	for i := range added {
		if i < len(want) && added[i] != want[i] {
			log.Warn("archive added under another store path than its fetch's", "file", files[i], "added", added[i], "fetch", want[i])
		}
	}
	return nil
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
	in, err := os.Open(src)
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
	f, err := os.Open(path)
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
