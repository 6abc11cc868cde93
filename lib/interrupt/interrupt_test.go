package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestNotify: a SIGTERM to the process cancels the context with its
// cause; exit code 143.
func TestNotify(t *testing.T) {
	ctx, stop := Notify(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	e, ok := Cause(ctx)
	if !ok || e.Signal != syscall.SIGTERM || e.ExitCode() != 143 || e.Error() != "interrupted by SIGTERM" {
		t.Errorf("cause %v (%v), want SIGTERM, exit 143", context.Cause(ctx), ok)
	}
}
