// Package interrupt turns SIGINT and SIGTERM into a cancelled context and
// passes them on to the commands a run started (Nix), so that they stop
// the way they stop when the user interrupts them: their builders killed,
// their build directories removed. A child that does not stop within
// Grace is killed with its process group.
package interrupt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Grace is how long a signalled child has to stop before it and the rest
// of its process group are killed (SIGKILL). Nix stops its builds and
// removes their directories in well under a second.
var Grace = 10 * time.Second

// Error is the cause of a context cancelled by a signal.
type Error struct {
	Signal syscall.Signal
}

func (e *Error) Error() string { return "interrupted by " + SignalName(e.Signal) }

// ExitCode is the shell's convention for a program ended by the signal:
// 128 + its number (130 for SIGINT, 143 for SIGTERM).
func (e *Error) ExitCode() int { return 128 + int(e.Signal) }

// SignalName is the signal's usual name (SIGINT, SIGTERM).
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("signal %d", int(s))
}

type stateKey struct{}

// state is what Notify's goroutine shares with Run: closed on a second
// signal, when the user does not want to wait for the grace period.
type state struct {
	hurry chan struct{}
}

// Notify returns a context cancelled, with an *Error as its cause, by the
// first SIGINT or SIGTERM the process receives; a second one kills the
// running children at once instead of after Grace. stop restores the
// signals' default action (ending the program).
func Notify(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	st := &state{hurry: make(chan struct{})}
	ctx = context.WithValue(ctx, stateKey{}, st)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; ; n++ {
			select {
			case s := <-sigs:
				if n == 0 {
					cancel(&Error{Signal: s.(syscall.Signal)})
				} else if n == 1 {
					close(st.hurry)
				}
			case <-quit:
				return
			}
		}
	}()
	stop := func() {
		signal.Stop(sigs)
		close(quit)
		<-done
		cancel(context.Canceled)
	}
	return ctx, stop
}

// Cause is the signal that cancelled ctx, if one did.
func Cause(ctx context.Context) (*Error, bool) {
	var e *Error
	if errors.As(context.Cause(ctx), &e) {
		return e, true
	}
	return nil, false
}

// signalFor is what a child gets when ctx is done: the signal the program
// received; SIGKILL when ctx's deadline passed (a time bound was reached:
// nothing is left to ask the child); else SIGTERM (the context was
// cancelled otherwise).
func signalFor(ctx context.Context) syscall.Signal {
	if e, ok := Cause(ctx); ok {
		return e.Signal
	}
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return syscall.SIGKILL
	}
	return syscall.SIGTERM
}

func hurry(ctx context.Context) <-chan struct{} {
	if st, ok := ctx.Value(stateKey{}).(*state); ok {
		return st.hurry
	}
	return nil
}

// Run runs cmd (made with exec.Command, not CommandContext) in a process
// group of its own. When ctx is done, the group gets the signal that
// ended ctx (SIGKILL for a passed deadline, SIGTERM if none), and Grace later, or at a second signal,
// SIGKILL; whatever of the group outlives the command itself is killed
// too. A terminal's Ctrl-C thus reaches the child once, through the
// program, which then knows the run was interrupted. Run does not start
// cmd when ctx is already done. The error of an interrupted command is
// its context's cause (an *Error for a signal).
func Run(ctx context.Context, cmd *exec.Cmd) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// A member of the group that keeps the output pipes open after the
	// command exited (killed below) does not hold up Wait.
	cmd.WaitDelay = Grace
	if err := cmd.Start(); err != nil {
		return err
	}
	group := cmd.Process.Pid
	exited := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-exited:
			return
		case <-ctx.Done():
		}
		_ = syscall.Kill(-group, signalFor(ctx))
		select {
		case <-exited:
		case <-time.After(Grace):
		case <-hurry(ctx):
		}
		// The command itself, if it is still running, and what it
		// started in its group and left behind.
		_ = syscall.Kill(-group, syscall.SIGKILL)
	}()
	err := cmd.Wait()
	close(exited)
	<-stopped
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// Output runs cmd like Run and returns its standard output.
func Output(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	err := Run(ctx, cmd)
	return out.Bytes(), err
}
