package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// progress reports work items as they finish: a live counter line on a
// terminal, plain log lines otherwise.
type progress struct {
	mu       sync.Mutex
	e        *env
	what     string
	total    int
	finished int
	failed   int
	tty      bool
}

func newProgress(e *env, what string, total int) *progress {
	return &progress{e: e, what: what, total: total, tty: isTerminal(e.stderr) && !e.quiet}
}

func (p *progress) done(item string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	if err != nil {
		p.failed++
	}
	if p.tty {
		status := "ok"
		if err != nil {
			status = "FAILED"
		}
		fmt.Fprintf(p.e.stderr, "\r\033[K%s [%d/%d, %d failed] %s %s", p.what, p.finished, p.total, p.failed, item, status)
		return
	}
	if err != nil {
		p.e.log.Error(p.what+" failed", "item", item, "error", err)
	} else {
		p.e.log.Info(p.what+" done", "item", item, "done", p.finished, "total", p.total)
	}
}

func (p *progress) finish() {
	if p.tty && p.finished > 0 {
		fmt.Fprintln(p.e.stderr)
	}
}

// progressWriter is where the progress of a run goes: w, or, when w is
// stdout or stderr, a duplicate of its file descriptor. A failed write to
// fd 1 or 2 on a broken pipe (stderr read by a program that is gone) makes
// Go kill the program with SIGPIPE, whatever the caller does with the
// error (see os/signal); on another descriptor the write only fails. The
// progress writers ignore their write errors, so the run goes on and
// writes its results. Ignoring SIGPIPE instead would also keep a run
// whose stdout reader is gone, and stdout is the results.
func progressWriter(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return w
	}
	dup, err := dupStdStream(f)
	if err != nil {
		// Not a standard stream, or no descriptor to spare: as it is.
		return w
	}
	return dup
}

// dupStdStream duplicates fd 1 or 2, close-on-exec so that Nix and the
// other commands the run starts do not inherit it (a pipe reader waiting
// for their end would wait for them too). The duplicate stays open for the
// run: the progress writes to it until the command returns.
func dupStdStream(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var dupErr error
	err = rc.Control(func(fd uintptr) {
		if fd != 1 && fd != 2 {
			dupErr = errors.New("not a standard stream")
			return
		}
		// As os/exec does: no fork between the dup and close-on-exec.
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		if nfd, dupErr = syscall.Dup(int(fd)); dupErr == nil {
			syscall.CloseOnExec(nfd)
		}
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return nil, fmt.Errorf("duplicate %s: %w", f.Name(), err)
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}
