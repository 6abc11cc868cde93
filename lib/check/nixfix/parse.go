package nixfix

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// Parses checks that Nix parses a file (nix-instantiate --parse): an
// edited or new file must. The error holds Nix's message.
func Parses(ctx context.Context, path string) error {
	stderr := &nixexec.LimitedBuffer{Max: 64 << 10}
	cmd := nixexec.Command("nix-instantiate", "--parse", path)
	cmd.Stderr = stderr
	err := cmd.Run(ctx)
	var exit *nixexec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("%s does not parse: %s", path, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return fmt.Errorf("parse %s: nix-instantiate: %w", path, err)
	}
	return nil
}
