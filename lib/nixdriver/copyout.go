package nixdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// CopyOutput copies the files of the store directory out, in the build's
// store, into the local directory dir: what KeepOutput's link gives when
// the outputs stay in Runner.Store (only result files come back; the
// local store gets none of the run's outputs). Each file is replaced
// only when its contents change; files of dir that out does not have are
// removed. A dir that is a symlink (a link from a local run) is replaced
// by the directory. changed says whether anything was written.
func (r *Runner) CopyOutput(ctx context.Context, out, dir string) (changed bool, err error) {
	names, err := r.listDir(ctx, out)
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		if fi.Mode()&os.ModeSymlink == 0 {
			return false, fmt.Errorf("copy %s: %s exists and is not a directory; move it away", out, dir)
		}
		if err := os.Remove(dir); err != nil {
			return false, fmt.Errorf("copy %s: %w", out, err)
		}
		changed = true
	} else if err == nil && !isEarlierCopy(dir) {
		return false, fmt.Errorf("copy %s: %s is a directory this program did not write (no index.json, not empty); move it away", out, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("copy %s: %w", out, err)
	}
	want := map[string]bool{}
	for _, name := range names {
		data, err := r.ReadFile(ctx, out+"/"+name)
		if err != nil {
			return false, err
		}
		wrote, err := atomicfile.WriteIfChanged(filepath.Join(dir, name), data)
		if err != nil {
			return false, err
		}
		changed, want[name] = changed || wrote, true
	}
	removed, err := removeOthers(dir, want)
	return changed || removed, err
}

// listDir lists the entries of a store directory (`nix store ls
// --json`). A name that is not a plain file name is refused: files are
// written under it.
func (r *Runner) listDir(ctx context.Context, dir string) ([]string, error) {
	args := append(append([]string{}, nixCommand...), "store", "ls", "--json")
	if r.Store != "" {
		args = append(args, "--store", r.Store)
	}
	data, err := nixexec.Command("nix", append(append(args, r.optionArgs(ctx)...), dir)...).Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("nix store ls %s: %w", dir, err)
	}
	var listing struct {
		Type    string                     `json:"type"`
		Entries map[string]json.RawMessage `json:"entries"`
	}
	if err := jsoncheck.Unmarshal("nix store ls "+dir, data, &listing); err != nil || listing.Type != "directory" {
		return nil, fmt.Errorf("nix store ls %s: not a directory listing (%v): %.200s", dir, err, data)
	}
	var names []string
	for name := range listing.Entries {
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
			return nil, fmt.Errorf("nix store ls %s: entry %q is not a file name", dir, name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// removeOthers removes the regular files of dir not in keep (left by an
// earlier copy of another output).
func removeOthers(dir string, keep map[string]bool) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("copy into %s: %w", dir, err)
	}
	removed := false
	for _, e := range entries {
		if keep[e.Name()] || !e.Type().IsRegular() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return removed, fmt.Errorf("copy into %s: %w", dir, err)
		}
		removed = true
	}
	return removed, nil
}

// isEarlierCopy says whether dir may be taken over: it is empty, or holds
// an aggregate (index.json) an earlier run copied there. Any other
// directory is the user's, whose files the copy would remove.
func isEarlierCopy(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	if len(entries) == 0 {
		return true
	}
	_, err = os.Lstat(filepath.Join(dir, "index.json"))
	return err == nil
}
