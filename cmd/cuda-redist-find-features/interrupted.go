package main

import (
	"context"
	"fmt"
	"io"

	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
)

// context is the context of a command that runs Nix or the network: from
// its first call, SIGINT and SIGTERM cancel it instead of ending the
// program, so that the Nix commands it runs are stopped properly (see
// interrupt.Run), their temporary files and GC roots removed, and no
// result file is left half-written. Other commands keep the signals'
// default action.
func (e *env) context() context.Context {
	if e.ctx == nil {
		e.ctx, e.stopSignals = interrupt.Notify(context.Background())
	}
	return e.ctx
}

// reportInterrupted says, for a command that returned an error after a
// signal, that it was interrupted (not that it failed), and returns the
// exit code of the signal (130 for SIGINT, 143 for SIGTERM).
func (e *env) reportInterrupted(stderr io.Writer, name string) (int, bool) {
	if e.ctx == nil {
		return 0, false
	}
	ie, ok := interrupt.Cause(e.ctx)
	if !ok {
		return 0, false
	}
	fmt.Fprintf(stderr, "%s: %v (the commands it started were stopped; result files not yet written are left as they were)\n", name, ie)
	return ie.ExitCode(), true
}

// stopContext restores the signals' default action once the command is done.
func (e *env) stopContext() {
	if e.stopSignals != nil {
		e.stopSignals()
	}
}
