package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// stderrFor is what the program writes its progress, logs and messages
// to: a duplicate of fd 2. A failed write to fd 1 or 2 on a broken pipe
// (stderr read by a program that is gone: `2>&1 | head -1` once head is
// done, a log shipper that died) makes Go kill the program with SIGPIPE,
// whatever the caller does with the error (see os/signal); on another
// descriptor the write only fails, and the writers of progress and logs
// ignore that. So a run whose stderr reader went away still writes its
// results. Stdout keeps Go's behaviour: it carries the results, and a
// reader of them that went away ends the run. When fd 2 cannot be
// duplicated, f as it is.
func stderrFor(f *os.File) io.Writer {
	dup, err := dupStdStream(f)
	if err != nil {
		return f
	}
	return dup
}

// dupStdStream duplicates fd 1 or 2, close-on-exec so that Nix and the
// other commands the run starts do not inherit it (a reader of the pipe
// waiting for its end would wait for them too; Nix's output reaches us
// through a pipe that Go copies to this writer). The duplicate stays open
// until the program exits.
func dupStdStream(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("duplicate %s: %w", f.Name(), err)
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
