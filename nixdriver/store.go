package nixdriver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
)

// The remote-store mode (Runner.Store set, e.g. ssh-ng://builder): the
// derivations are evaluated into the local store, but built in Store
// (`nix copy --derivation --to URI`, then `nix-store --store URI --realise`);
// archives, unpacked trees and detections stay on
// that store, and the CLI reads back only the result files, with
// `nix store cat --store URI`. Local file:// archives are added to Store
// directly (nix-store --store URI --add-fixed).

// nixCommand is the experimental feature `nix copy`, `nix show-config`,
// `nix store ls` and `nix store cat` need.
var nixCommand = []string{"--extra-experimental-features", "nix-command"}

// realiseInStore copies the derivations (and their closure: the other
// derivations and the program) to r.Store, then builds their outputs
// there. (A .drv must be valid in URI before it is built there, so the
// copy comes first.)
func (r *Runner) realiseInStore(ctx context.Context, drvs []string) error {
	copyArgs := append(append([]string{}, nixCommand...), "copy", "--derivation", "--to", r.Store)
	cp := exec.Command("nix", append(append(copyArgs, r.optionArgs()...), drvs...)...)
	cp.Stdout, cp.Stderr = io.Discard, r.Stderr
	if err := interrupt.Run(ctx, cp); err != nil {
		return fmt.Errorf("nix copy --derivation --to %s: %w", r.Store, err)
	}
	// nix-store --realise rather than nix build: since Nix 2.13 a bare
	// .drv argument of nix build is the derivation file itself, and its
	// outputs are written drv^*, which 2.8 does not know.
	args := append([]string{"--store", r.Store, "--realise", "--no-gc-warning"}, drvs...)
	args = append(append(args, r.BuildArgs...), r.optionArgs()...)
	cmd := exec.Command("nix-store", args...)
	cmd.Stdout = io.Discard
	cmd.Stderr = r.Stderr
	if err := interrupt.Run(ctx, cmd); err != nil {
		return fmt.Errorf("nix-store --store %s --realise: %w", r.Store, err)
	}
	return nil
}

// Valid returns which of the store paths are valid in the build's store
// (the local one, or r.Store), as Nix's database says: a path can exist
// on disk and still be invalid, the leftover of a fetch or build that
// failed; Nix replaces it when it adds or builds the path again. One
// `nix-store --check-validity --print-invalid` per validBatch paths.
func (r *Runner) Valid(ctx context.Context, paths []string) (map[string]bool, error) {
	valid := map[string]bool{}
	var ask []string
	for _, p := range paths {
		if p != "" && !valid[p] {
			valid[p] = true
			ask = append(ask, p)
		}
	}
	for len(ask) > 0 {
		n := min(len(ask), validBatch)
		invalid, err := r.invalid(ctx, ask[:n])
		if err != nil {
			return nil, err
		}
		for _, p := range invalid {
			valid[p] = false
		}
		ask = ask[n:]
	}
	return valid, nil
}

// validBatch keeps a command line of store paths well under the kernel's
// limit on arguments.
const validBatch = 2000

// invalid lists those of the paths that are not valid.
func (r *Runner) invalid(ctx context.Context, paths []string) ([]string, error) {
	args := []string{"--check-validity", "--print-invalid"}
	where := "the Nix store"
	if r.Store != "" {
		args = append([]string{"--store", r.Store}, args...)
		where = r.Store
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command("nix-store", append(append(args, r.optionArgs()...), paths...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := interrupt.Run(ctx, cmd); err != nil {
		return nil, fmt.Errorf("check paths in %s: %w: %s", where, err, bytes.TrimSpace(errOut.Bytes()))
	}
	return strings.Fields(out.String()), nil
}

// ReadFile reads a file of a store path from the build's store.
func (r *Runner) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if r.Store == "" {
		return os.ReadFile(path)
	}
	args := append(append([]string{}, nixCommand...), "store", "cat", "--store", r.Store, path)
	var out, errOut bytes.Buffer
	cmd := exec.Command("nix", append(args, r.optionArgs()...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := interrupt.Run(ctx, cmd); err != nil {
		return nil, fmt.Errorf("read %s from %s: %w: %s", path, r.Store, err, bytes.TrimSpace(errOut.Bytes()))
	}
	return out.Bytes(), nil
}
