package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// nixProgress shows the progress of the Nix builds that nixlog.Tracker
// follows in Nix's structured log (--log-format internal-json). On a
// terminal it keeps one status line: how many archives' fetches, unpacks
// and detections are done, the bytes downloaded, and the builds running.
// Nix's errors and warnings, and the lines it writes as they are, show as
// they come. In lines mode (stderr not a terminal: a log file, a pipe, CI)
// it writes one line per finished derivation instead, e.g.
// "detected cuda_nvcc-linux-x86_64-11.8.89 (3/12)", with the bytes its
// downloads reported and " on MACHINE" for a remote build.
type nixProgress struct {
	mu      sync.Mutex
	w       io.Writer
	lines   bool
	pending []byte
	t       *nixlog.Tracker
	shown   bool
	last    string // the status line shown last
	// stopped reports whether the run was interrupted: a build that
	// stops then was stopped, not done (the run's context is cancelled
	// before Nix gets the signal).
	stopped func() bool
	// failures are the failed builds, for the summary at the end;
	// failedDrv the same by .drv path, and the derivations not built for
	// want of one they need, for --json (failureOf).
	failures  []nixlog.Build
	failedDrv map[string]nixlog.Build
}

func newNixProgress(w io.Writer) *nixProgress {
	return &nixProgress{w: w, t: nixlog.NewTracker()}
}

// newNixEventLines is the lines mode: one line per event, no status line.
func newNixEventLines(w io.Writer) *nixProgress {
	p := newNixProgress(w)
	p.lines = true
	return p
}

// setRoles tells the tracker each derivation's stage, as the driver has
// it from nix/cli.nix (Runner.SetRoles).
func (p *nixProgress) setRoles(r nixlog.Roles) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.SetRoles(r)
}

// Write takes Nix's stderr. It never fails: a failing write would make
// exec stop reading, and Nix's next write would fail.
func (p *nixProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, b...)
	for {
		i := bytes.IndexByte(p.pending, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(p.pending[:i])
		p.pending = p.pending[i+1:]
		p.line(line)
	}
}

func (p *nixProgress) line(line string) {
	ev, ok := nixlog.Parse(line)
	if !ok {
		p.print(line)
		return
	}
	u := p.t.Handle(ev)
	if u.Kind == nixlog.Duplicate {
		return
	}
	p.show(u)
	if !p.lines {
		p.status()
	}
}

// show shows what an event meant.
func (p *nixProgress) show(u nixlog.Update) {
	switch u.Kind {
	case nixlog.Message:
		if !nixlog.IsRetryNotice(u.Message) {
			p.print(u.Message)
		}
	case nixlog.Finished, nixlog.LateFailure:
		p.finished(u.Build)
	case nixlog.DependencyFailed:
		if !p.interrupted() {
			p.remember(u.Build)
		}
	case nixlog.Downloaded:
		if p.lines {
			fmt.Fprintf(p.w, "downloaded %s\n", mib(u.Bytes))
		}
	}
}

// Words for a stage: what its finished builds did, and what failed.
var (
	stageVerb = map[nixlog.Stage]string{nixlog.Fetch: "fetched", nixlog.Unpack: "unpacked", nixlog.Detect: "detected",
		nixlog.Aggregate: "built", nixlog.Other: "built"}
	stageFailed = map[nixlog.Stage]string{nixlog.Fetch: "fetch", nixlog.Unpack: "unpack", nixlog.Detect: "detect",
		nixlog.Aggregate: "aggregate", nixlog.Other: "build"}
)

// finished shows a build that stopped: a failure in both modes, with
// its cause, and kept for the summary; a success in lines mode.
func (p *nixProgress) finished(b nixlog.Build) {
	if p.interrupted() {
		// Stopped by the signal, not failed nor done.
		if p.lines {
			fmt.Fprintf(p.w, "stopped %s (%s, interrupted)\n", b.Subject, stageFailed[b.Stage])
		}
		return
	}
	if b.Failed {
		if before, ok := p.failedDrv[b.Drv]; ok && before.Failed {
			// Failed again in a later nix-store --realise of the run
			// (process-manifests builds the unpacks first, then the
			// detections, which need them; Nix retries a failed build
			// each time it is asked for it): one failure, said once.
			return
		}
		p.failures = append(p.failures, b)
		p.remember(b)
		p.print(failureLine(b))
		return
	}
	if p.lines {
		p.eventLine(b)
	}
}

func (p *nixProgress) remember(b nixlog.Build) {
	if p.failedDrv == nil {
		p.failedDrv = map[string]nixlog.Build{}
	}
	p.failedDrv[b.Drv] = b
}

// failureOf is the failed build of drv, or its failure for want of a
// derivation it needs (Failed false).
func (p *nixProgress) failureOf(drv string) (nixlog.Build, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.failedDrv[drv]
	return b, ok
}

// failureLine is "failed NAME (STAGE): CAUSE", the cause being the last
// error line the builder wrote.
func failureLine(b nixlog.Build) string {
	cause := b.Cause
	if cause == "" {
		cause = noCause
	}
	return fmt.Sprintf("failed %s (%s): %s", b.Subject, stageFailed[b.Stage], cause)
}

// eventLine is lines mode's line for a derivation Nix finished building:
// what it was, the archive's name, the count of its stage, what it
// downloaded and where it ran.
func (p *nixProgress) eventLine(b nixlog.Build) {
	line := stageVerb[b.Stage] + " " + b.Subject
	// An aggregate has no count (there is one per manifest), nor has a
	// derivation the driver did not name.
	if b.Stage != nixlog.Aggregate && b.Stage != nixlog.Other && b.Planned > 0 {
		line += fmt.Sprintf(" (%d/%d)", b.Done, b.Planned)
	}
	if b.Bytes > 0 {
		line += ", " + mib(b.Bytes)
	}
	if b.Machine != "" {
		line += " on " + b.Machine
	}
	fmt.Fprintln(p.w, line)
}

// interrupted reports whether the run was interrupted.
func (p *nixProgress) interrupted() bool { return p.stopped != nil && p.stopped() }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// print writes a line of Nix's above the status line, made safe (it can
// name what the input named), Nix's colours kept.
func (p *nixProgress) print(text string) {
	p.clear()
	fmt.Fprintln(p.w, safetext.TextKeepingColours(strings.TrimRight(text, "\n")))
}

// clear takes the status line away.
func (p *nixProgress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// status redraws the status line when it changed, once Nix has said
// what it will build.
func (p *nixProgress) status() {
	parts := p.stageCounts()
	if len(parts) == 0 {
		return
	}
	if n := p.t.Downloaded(); n > 0 {
		parts = append(parts, mib(n)+" downloaded")
	}
	line := "archives: " + strings.Join(parts, ", ")
	if names := p.t.Running(); len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3], "…")
		}
		line += "; building " + strings.Join(names, " ")
	}
	if p.shown && line == p.last {
		return
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
	p.shown, p.last = true, line
}

// stageCounts is "fetched 2/3 (1 failed)" for each archive stage Nix
// planned builds of.
func (p *nixProgress) stageCounts() []string {
	var parts []string
	for _, s := range []nixlog.Stage{nixlog.Fetch, nixlog.Unpack, nixlog.Detect} {
		planned, failed := p.t.Planned(s), p.t.Failed(s)
		if planned == 0 {
			continue
		}
		part := fmt.Sprintf("%s %d/%d", stageVerb[s], p.t.Done(s)-failed, planned)
		if failed > 0 {
			part += fmt.Sprintf(" (%d failed)", failed)
		}
		parts = append(parts, part)
	}
	return parts
}

// clearing returns a writer that takes the status line away before each
// write to w (the results on stdout, when both are the terminal); the
// next event shows it again.
func (p *nixProgress) clearing(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		p.clear()
		p.mu.Unlock()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// finish ends the status line.
func (p *nixProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pending) > 0 {
		p.line(string(p.pending))
		p.pending = nil
	}
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
	if !p.interrupted() {
		for _, line := range failureSummary(p.failures, p.dependencyFailed()) {
			fmt.Fprintln(p.w, safetext.TextKeepingColours(line))
		}
	}
	p.failures = nil
}

// entryFailure says what failed of an entry's fetch, unpack and
// detection, in that order, and why: "unpack failed: CAUSE"; "" when
// none is known failed.
func entryFailure(e nixdriver.Entry, failureOf func(string) (nixlog.Build, bool)) string {
	for _, d := range []nixdriver.Derivation{e.Fetch, e.Unpack, e.Detect} {
		if b, ok := failureOf(d.Drv); ok && b.Failed {
			cause := b.Cause
			if cause == "" {
				cause = noCause
			}
			return stageFailed[b.Stage] + " failed: " + cause
		}
	}
	return ""
}

// dependencyFailed counts by stage the derivations not built because
// one they need failed.
func (p *nixProgress) dependencyFailed() map[nixlog.Stage]int {
	n := map[nixlog.Stage]int{}
	for s := nixlog.Fetch; s <= nixlog.Other; s++ {
		if d := p.t.DependencyFailed(s); d > 0 {
			n[s] = d
		}
	}
	return n
}
