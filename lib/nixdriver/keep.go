package nixdriver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// maxMessage bounds the error output of a Nix command kept for a message.
const maxMessage = 64 << 10

// KeepOutput makes the store path out last beyond the run: link becomes
// a symlink to it, registered as a GC root (`nix-store --add-root LINK
// --indirect --realise OUT`), so that `nix-store --gc` keeps out as long
// as link exists, and the commands that read aggregate directories find
// it there. (With Runner.Store the outputs are not in the local store:
// see CopyOutput.) A link that already points at out and is a root is
// left alone, its modification time included; changed says whether link
// was (re)made. Any other symlink there (dangling, stale, to another
// output) is replaced atomically; a link that exists as anything but a
// symlink (a file, a directory: not what this program writes) is not
// replaced.
func (r *Runner) KeepOutput(ctx context.Context, out, link string) (changed bool, err error) {
	link, err = filepath.Abs(link)
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return false, fmt.Errorf("keep %s: %s exists and is not a symlink (%s); move it away (it is where the result's link goes)", out, link, kindOf(fi))
	}
	cur, readErr := os.Readlink(link)
	if readErr == nil && cur == out && pathExists(out) {
		rooted, err := isRootOf(ctx, out, link)
		if err != nil {
			return false, err
		}
		if rooted {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return false, fmt.Errorf("keep %s: %w", out, err)
	}
	if readErr == nil && cur != out {
		// nix-store --add-root replaces a link into the store, but refuses
		// one to anywhere else ("cannot create symlink …; already exists"):
		// a dangling relative link, a link to a moved directory. Point it
		// at out first, by a rename over it, so that the link is never
		// missing; Nix then replaces it the same way and registers it.
		if err := replaceSymlink(out, link); err != nil {
			return false, fmt.Errorf("keep %s: %w", out, err)
		}
	}
	args := append([]string{"--add-root", link, "--indirect", "--realise", out}, r.optionArgs(ctx)...)
	errOut := &nixexec.LimitedBuffer{Max: maxMessage}
	cmd := nixexec.Command("nix-store", args...)
	cmd.Stderr = errOut
	if err := cmd.Run(ctx); err != nil {
		return false, fmt.Errorf("nix-store --add-root %s: %w: %s", link, err, bytes.TrimSpace(errOut.Bytes()))
	}
	return true, nil
}

// replaceSymlink makes link a symlink to target, atomically: a new link
// beside it, renamed over it.
func replaceSymlink(target, link string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(link), ".tmp-link-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	next := filepath.Join(tmp, "link")
	if err := os.Symlink(target, next); err != nil {
		return err
	}
	if err := os.Rename(next, link); err != nil {
		return fmt.Errorf("replace the symlink %s: %w", link, err)
	}
	return nil
}

// kindOf names what a file is, for a message.
func kindOf(fi os.FileInfo) string {
	switch m := fi.Mode(); {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	default:
		return "a special file (" + m.Type().String() + ")"
	}
}

// isRootOf says whether link is among the GC roots of out (`nix-store
// -q --roots`, whose lines read "LINK -> OUT").
func isRootOf(ctx context.Context, out, link string) (bool, error) {
	// Its stderr says which stale roots it removed: nothing to show.
	stdout, err := nixexec.Command("nix-store", "-q", "--roots", out).Output(ctx)
	if err != nil {
		return false, fmt.Errorf("nix-store -q --roots %s: %w", out, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		if root, _, ok := strings.Cut(sc.Text(), " -> "); ok && root == link {
			return true, nil
		}
	}
	return false, sc.Err()
}

// pathExists reports whether path (a store path, say) exists.
func pathExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
