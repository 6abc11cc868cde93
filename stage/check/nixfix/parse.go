package nixfix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Parses checks that Nix parses a file (nix-instantiate --parse): an
// edited or new file must. The error holds Nix's message.
func Parses(ctx context.Context, path string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "nix-instantiate", "--parse", path)
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("%s does not parse: %s", path, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return fmt.Errorf("parse %s: nix-instantiate: %w", path, err)
	}
	return nil
}
