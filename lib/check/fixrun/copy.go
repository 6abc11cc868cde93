package fixrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// inCopy runs f on a temporary copy of the packages directory with the
// given files replaced and the removed ones gone, and removes the copy.
func (fr *Fix) inCopy(files map[string]string, removed []string, f func(dir string) error) error {
	dir, err := os.MkdirTemp("", "crff-fix-*")
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := copyTree(fr.PackagesDir, dir); err != nil {
		return fmt.Errorf("fix: copying %s: %w", fr.PackagesDir, err)
	}
	for file, text := range files {
		if err := notThroughLink(dir, file); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(file)), []byte(text), 0o644); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	for _, file := range removed {
		if err := notThroughLink(dir, file); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	return f(dir)
}

// copyTree copies the directories, regular files and symlinks under src
// into dst (no FIFO, device or socket: the listing names those).
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
