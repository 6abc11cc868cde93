package main

import (
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
	"sync"
)

// progress reports work items as they finish: a live counter line on a
// terminal, plain log lines of the items done otherwise (the failures
// are counted; the caller reports them).
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
	return &progress{e: e, what: what, total: total, tty: isTerminal(e.terminal) && !e.quiet}
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
		fmt.Fprintf(p.e.terminal, "\r\033[K%s [%d/%d, %d failed] %s %s", p.what, p.finished, p.total, p.failed, safetext.Escape(item), status)
		return
	}
	// A failure is the caller's to report, once per kind: a line
	// each could be a million lines.
	if err == nil {
		p.e.log.Info(p.what+" done", "item", item, "done", p.finished, "total", p.total)
	}
}

func (p *progress) finish() {
	if p.tty && p.finished > 0 {
		fmt.Fprintln(p.e.terminal)
	}
}
