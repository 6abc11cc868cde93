package nixdriver

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
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
	copyArgs := append(append(append([]string{}, nixCommand...), "copy", "--derivation", "--to", r.Store), r.optionArgs(ctx)...)
	batches, err := nixexec.Batches(copyArgs, drvs)
	if err != nil {
		return fmt.Errorf("nix copy --derivation --to %s: %w", r.Store, err)
	}
	for _, batch := range batches {
		cp := nixexec.Command("nix", append(append([]string{}, copyArgs...), batch...)...)
		cp.Stderr = r.Stderr
		if err := cp.Run(ctx); err != nil {
			return fmt.Errorf("nix copy --derivation --to %s: %w", r.Store, err)
		}
	}
	// nix-store --realise rather than nix build: since Nix 2.13 a bare
	// .drv argument of nix build is the derivation file itself, and its
	// outputs are written drv^*, which 2.8 does not know.
	args := append([]string{"--store", r.Store, "--realise", "--no-gc-warning"}, r.buildArgs(ctx)...)
	args = append(args, r.optionArgs(ctx)...)
	if batches, err = nixexec.Batches(args, drvs); err != nil {
		return fmt.Errorf("nix-store --store %s --realise: %w", r.Store, err)
	}
	var first error
	for _, batch := range batches {
		cmd := nixexec.Command("nix-store", append(append([]string{}, args...), batch...)...)
		cmd.Stdout, cmd.Stderr = io.Discard, r.Stderr
		err := cmd.Run(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("nix-store --store %s --realise: %w", r.Store, err)
		}
		if err != nil && first == nil {
			first = fmt.Errorf("nix-store --store %s --realise: %w", r.Store, err)
		}
		if err != nil && !slices.Contains(r.BuildArgs, "--keep-going") {
			break
		}
	}
	return first
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
	args := []string{"--check-validity", "--print-invalid"}
	where := "the Nix store"
	if r.Store != "" {
		args = append([]string{"--store", r.Store}, args...)
		where = r.Store
	}
	args = append(args, r.optionArgs(ctx)...)
	batches, err := nixexec.Batches(args, ask)
	if err != nil {
		return nil, fmt.Errorf("check paths in %s: %w", where, err)
	}
	for _, batch := range batches {
		errOut := &nixexec.LimitedBuffer{Max: maxMessage}
		cmd := nixexec.Command("nix-store", append(append([]string{}, args...), batch...)...)
		cmd.Stderr = errOut
		out, err := cmd.Output(ctx)
		if err != nil {
			return nil, fmt.Errorf("check paths in %s: %w: %s", where, err, strings.TrimSpace(errOut.String()))
		}
		for _, p := range strings.Fields(string(out)) {
			valid[p] = false
		}
	}
	return valid, nil
}

// ReadFile reads a file of a store path from the build's store.
func (r *Runner) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if r.Store == "" {
		return os.ReadFile(path)
	}
	args := append(append([]string{}, nixCommand...), "store", "cat", "--store", r.Store, path)
	errOut := &nixexec.LimitedBuffer{Max: maxMessage}
	cmd := nixexec.Command("nix", append(args, r.optionArgs(ctx)...)...)
	cmd.Stderr = errOut
	out, err := cmd.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w: %s", path, r.Store, err, strings.TrimSpace(errOut.String()))
	}
	return out, nil
}
