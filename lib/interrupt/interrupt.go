// Package interrupt turns SIGINT and SIGTERM into a cancelled context
// whose cause names the signal (exit 130 or 143); lib/nixexec passes the
// interruption on to the Nix commands a run started.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

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

// state is what Notify's goroutine shares with Hurry: closed on a second
// signal, when the user does not want to wait for the grace period.
type state struct {
	hurry chan struct{}
}

// Notify returns a context cancelled, with an *Error as its cause, by the
// first SIGINT or SIGTERM the process receives; a second one kills the
// running commands at once instead of after their grace period. stop restores the
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

// Hurry is closed at the second signal: the user does not want to wait
// for a command's grace period (see nixexec).
func Hurry(ctx context.Context) <-chan struct{} {
	if st, ok := ctx.Value(stateKey{}).(*state); ok {
		return st.hurry
	}
	return nil
}
