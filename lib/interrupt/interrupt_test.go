package interrupt

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startShell runs script with Run in the background and returns, once the
// script printed "ready <pid>", that pid and the channel Run's error
// arrives on.
func startShell(t *testing.T, ctx context.Context, script string) (int, <-chan error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = w
	cmd.Dir = t.TempDir()
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, cmd) }()
	line, err := bufio.NewReader(r).ReadString('\n')
	w.Close()
	if err != nil {
		t.Fatalf("no ready line: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "ready "))
	if err != nil {
		t.Fatalf("ready line %q: %v", line, err)
	}
	return pid, errc
}

// gone waits until pid is no process (or a zombie: reparented to an init
// that does not reap); the process was killed, so this ends.
func gone(pid int) bool {
	for {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(data)); len(f) > 2 && f[2] == "Z" {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunPassesTheSignal: the command gets the program's signal (its trap
// runs and writes it down), and so does what it started in its group.
func TestRunPassesTheSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(SignalName(sig), func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			marker := filepath.Join(t.TempDir(), "trapped")
			name := strings.TrimPrefix(SignalName(sig), "SIG")
			// The child waits on a sleep it started (same group); its
			// trap records the signal.
			pid, errc := startShell(t, ctx, `trap 'echo `+name+` > `+marker+`; exit 7' `+name+`; sleep 1000 & echo "ready $!"; wait`)
			cancel(&Error{Signal: sig})
			err := <-errc
			var ie *Error
			if !errors.As(err, &ie) || ie.Signal != sig {
				t.Errorf("Run returned %v, want the interruption by %s", err, SignalName(sig))
			}
			if data, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(data)) != name {
				t.Errorf("the child's trap did not see %s: %q %v", name, data, err)
			}
			if !gone(pid) {
				t.Errorf("the grandchild %d outlived the run", pid)
			}
		})
	}
}

// TestRunKillsWhatIgnoresTheSignal: a child that ignores SIGTERM is killed
// after Grace, with the grandchild that ignores it too.
func TestRunKillsWhatIgnoresTheSignal(t *testing.T) {
	old := Grace
	Grace = 50 * time.Millisecond
	defer func() { Grace = old }()
	ctx, cancel := context.WithCancel(context.Background())
	pid, errc := startShell(t, ctx, `trap '' TERM; sleep 1000 & echo "ready $!"; wait; wait`)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the run", pid)
	}
}

// TestRunKillsAtTheDeadline: a context whose deadline passed (a time
// bound, as check-nixpkgs sets per evaluation) kills the group at once,
// with no SIGTERM first: the child's TERM trap never runs.
func TestRunKillsAtTheDeadline(t *testing.T) {
	old := Grace
	Grace = 5 * time.Second
	defer func() { Grace = old }()
	ctx, cancel := context.WithCancelCause(context.Background())
	marker := filepath.Join(t.TempDir(), "trapped")
	pid, errc := startShell(t, ctx, `trap 'echo TERM > `+marker+`' TERM; sleep 1000 & echo "ready $!"; wait; wait`)
	cancel(context.DeadlineExceeded)
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run returned %v, want context.DeadlineExceeded", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the child got SIGTERM before SIGKILL")
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the run", pid)
	}
}

// TestRunNotStartedAfterInterrupt: once interrupted, nothing new starts.
func TestRunNotStartedAfterInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&Error{Signal: syscall.SIGINT})
	marker := filepath.Join(t.TempDir(), "ran")
	err := Run(ctx, exec.Command("touch", marker))
	if e, ok := err.(*Error); !ok || e.ExitCode() != 130 {
		t.Errorf("Run returned %v, want the interruption (exit 130)", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran after the interruption")
	}
}

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

// TestSecondSignalKillsAtOnce: a child that ignores the signal is killed
// at the second one, not after Grace (an hour here: were the second
// signal not heeded, the test would time out).
func TestSecondSignalKillsAtOnce(t *testing.T) {
	old := Grace
	Grace = time.Hour
	defer func() { Grace = old }()
	ctx, stop := Notify(context.Background())
	defer stop()
	pid, errc := startShell(t, ctx, `trap '' INT; sleep 1000 & echo "ready $!"; wait; wait`)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	// Sent once the first was taken: two pending signals would be one.
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if e, ok := err.(*Error); !ok || e.Signal != syscall.SIGINT {
		t.Errorf("Run returned %v, want the interruption by SIGINT", err)
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the run", pid)
	}
}
