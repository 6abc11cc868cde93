package main

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixlog"
)

// Stages of an archive's derivations, told apart by their names (see
// nix/pipeline.nix: the fetch is named after the archive, the unpack after
// its stem, the detection <stem>-features.json).
const (
	stageFetch  = "fetched"
	stageUnpack = "unpacked"
	stageDetect = "detected"
	stageOther  = "other"
)

var archiveName = regexp.MustCompile(`\.(tar\.xz|tar\.gz|tgz|tar\.bz2|tbz2|tar|zip)$`)

// drvName is a derivation's name: its store path without the hash.
func drvName(drvPath string) string {
	name := strings.TrimSuffix(path.Base(drvPath), ".drv")
	if i := strings.IndexByte(name, '-'); i == 32 {
		name = name[i+1:]
	}
	return name
}

// stageOf classifies a derivation by its store path.
func stageOf(drvPath string) string {
	name := drvName(drvPath)
	switch {
	case archiveName.MatchString(name):
		return stageFetch
	case strings.HasSuffix(name, "-features.json"):
		return stageDetect
	case strings.HasSuffix(name, "-features") || strings.HasSuffix(name, "-index") || strings.HasSuffix(name, "buildRedist.json"):
		return stageOther
	}
	return stageUnpack
}

// nixProgress reads Nix's structured log (--log-format internal-json) and
// keeps one status line on the terminal: how many archives' fetches,
// unpacks and detections of those Nix builds are done, the bytes
// downloaded, and the builds running. Nix's errors and warnings are
// printed as they come. In lines mode (stderr not a terminal: a log file,
// a pipe, CI) it writes one line per finished derivation instead, e.g.
// "detected cuda_nvcc-linux-x86_64-11.8.89 (3/12)", with " on MACHINE"
// for a remote build and the bytes Nix reports downloading.
type nixProgress struct {
	mu      sync.Mutex
	w       io.Writer
	lines   bool
	pending []byte
	// planned and done per stage; listing is set while Nix lists what it
	// will build.
	planned, done, failed map[string]int
	listing               bool
	running               map[uint64]string // build activity -> derivation
	machine               map[uint64]string // build activity -> remote machine ("" local)
	failedDrv             map[string]bool   // derivations Nix said failed
	transfers             map[uint64]int64  // file transfer activity -> bytes
	transferOf            map[uint64]uint64 // file transfer activity -> its parent activity
	fetched               map[uint64]int64  // build activity -> bytes its transfers reported
	shown                 bool
	last                  string // the status line shown last
}

func newNixProgress(w io.Writer) *nixProgress {
	return &nixProgress{w: w, planned: map[string]int{}, done: map[string]int{}, failed: map[string]int{},
		running: map[uint64]string{}, machine: map[uint64]string{}, failedDrv: map[string]bool{},
		transfers: map[uint64]int64{}, transferOf: map[uint64]uint64{}, fetched: map[uint64]int64{}}
}

// newNixEventLines is the lines mode: one line per event, no status line.
func newNixEventLines(w io.Writer) *nixProgress {
	p := newNixProgress(w)
	p.lines = true
	return p
}

func (p *nixProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, b...)
	for {
		i := bytes.IndexByte(p.pending, '\n')
		if i < 0 {
			break
		}
		line := string(p.pending[:i])
		p.pending = p.pending[i+1:]
		p.line(line)
	}
	return len(b), nil
}

func (p *nixProgress) line(line string) {
	ev, ok := nixlog.Parse(line)
	if !ok {
		p.print(line)
		return
	}
	switch ev.Action {
	case "msg":
		text := strings.TrimSpace(ev.Msg)
		switch {
		case strings.Contains(text, "will be built:"):
			p.listing = true
		case p.listing && strings.HasSuffix(text, ".drv"):
			p.planned[stageOf(text)]++
		default:
			p.listing = false
			if ev.Level <= 1 { // errors and warnings
				p.print(ev.Msg)
				if m := failedBuilder.FindStringSubmatch(ev.Msg); m != nil {
					p.failed[stageOf(m[1])]++
					p.failedDrv[m[1]] = true
				}
			}
		}
	case "start":
		p.listing = false
		if ev.Type == nixlog.ActBuild {
			drv := ev.StringField(0)
			for _, d := range p.running {
				if d == drv {
					// A remote builder's own report of the build the
					// client sent it (ssh-ng forwards the builder's log):
					// the same build, not one more.
					return
				}
			}
			p.running[ev.ID] = drv
			p.machine[ev.ID] = ev.StringField(1)
		} else if ev.Type == nixlog.ActFileTransfer {
			p.transfers[ev.ID] = 0
			p.transferOf[ev.ID] = ev.Parent
		}
	case "result":
		if _, ok := p.transfers[ev.ID]; ok && ev.Type == nixlog.ResProgress {
			p.transfers[ev.ID] = ev.IntField(0)
		}
	case "stop":
		if drv, ok := p.running[ev.ID]; ok {
			delete(p.running, ev.ID)
			stage := stageOf(drv)
			p.done[stage]++
			if p.lines {
				p.eventLine(ev.ID, drv, stage)
			}
			delete(p.machine, ev.ID)
			delete(p.fetched, ev.ID)
		} else if parent, ok := p.transferOf[ev.ID]; ok {
			delete(p.transferOf, ev.ID)
			if _, building := p.running[parent]; building {
				p.fetched[parent] += p.transfers[ev.ID]
			} else if p.lines && p.transfers[ev.ID] > 0 {
				// A download outside a build (a substitution, a fetch
				// during evaluation): its bytes on a line of their own.
				fmt.Fprintf(p.w, "downloaded %s\n", mib(p.transfers[ev.ID]))
			}
		}
	}
	if !p.lines {
		p.status()
	}
}

// eventLine is lines mode's line for a derivation Nix finished building:
// what it was (the stage's verb, or "built" for an aggregate), the
// archive's name, the count of its stage, where it ran and what it
// downloaded.
func (p *nixProgress) eventLine(id uint64, drv, stage string) {
	name := strings.TrimSuffix(archiveName.ReplaceAllString(drvName(drv), ""), "-features.json")
	verb := stage
	if stage == stageOther {
		verb = "built"
	}
	if p.failedDrv[drv] {
		fmt.Fprintf(p.w, "failed %s (%s)\n", name, failedStage[stage])
		return
	}
	line := verb + " " + name
	if stage != stageOther && p.planned[stage] > 0 {
		line += fmt.Sprintf(" (%d/%d)", p.done[stage], p.planned[stage])
	}
	if n := p.fetched[id]; n > 0 {
		line += ", " + mib(n)
	}
	if m := p.machine[id]; m != "" {
		line += " on " + m
	}
	fmt.Fprintln(p.w, line)
}

var failedStage = map[string]string{stageFetch: "fetch", stageUnpack: "unpack", stageDetect: "detect", stageOther: "aggregate"}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

var failedBuilder = regexp.MustCompile(`builder for '([^']+\.drv)' failed`)

// print writes a line of Nix's above the status line.
func (p *nixProgress) print(text string) {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
	fmt.Fprintln(p.w, strings.TrimRight(text, "\n"))
}

func (p *nixProgress) status() {
	var parts []string
	for _, s := range []string{stageFetch, stageUnpack, stageDetect} {
		if p.planned[s] == 0 {
			continue
		}
		part := fmt.Sprintf("%s %d/%d", s, p.done[s]-p.failed[s], p.planned[s])
		if p.failed[s] > 0 {
			part += fmt.Sprintf(" (%d failed)", p.failed[s])
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return
	}
	var bytes int64
	for _, n := range p.transfers {
		bytes += n
	}
	if bytes > 0 {
		parts = append(parts, mib(bytes)+" downloaded")
	}
	var names []string
	for _, drv := range p.running {
		names = append(names, drvName(drv))
	}
	sort.Strings(names)
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	line := "archives: " + strings.Join(parts, ", ")
	if len(names) > 0 {
		line += "; building " + strings.Join(names, " ")
	}
	if p.shown && line == p.last {
		return
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
	p.shown, p.last = true, line
}

// clearing returns a writer that takes the status line away before each
// write to w (the results on stdout, when both are the terminal); the
// next event shows it again.
func (p *nixProgress) clearing(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		if p.shown {
			fmt.Fprint(p.w, "\r\033[K")
			p.shown = false
		}
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
}
