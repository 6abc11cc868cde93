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
// was (re)made. A link that exists as anything but a symlink is not
// replaced.
func (r *Runner) KeepOutput(ctx context.Context, out, link string) (changed bool, err error) {
	link, err = filepath.Abs(link)
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return false, fmt.Errorf("keep %s: %s exists and is not a symlink; move it away (it is where the result's link goes)", out, link)
	}
	if cur, err := os.Readlink(link); err == nil && cur == out && pathExists(out) {
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
	args := append([]string{"--add-root", link, "--indirect", "--realise", out}, r.optionArgs(ctx)...)
	errOut := &nixexec.LimitedBuffer{Max: maxMessage}
	cmd := nixexec.Command("nix-store", args...)
	cmd.Stderr = errOut
	if err := cmd.Run(ctx); err != nil {
		return false, fmt.Errorf("nix-store --add-root %s: %w: %s", link, err, bytes.TrimSpace(errOut.Bytes()))
	}
	return true, nil
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
