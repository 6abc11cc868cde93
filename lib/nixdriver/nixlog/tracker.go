package nixlog

import (
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/ansi"
)

// Tracker follows the builds of one Nix command from its structured log:
// what Nix planned per stage, what runs where, what finished or failed,
// and the bytes downloaded, per build and in all. It keeps no output of
// its own: Handle says what each event meant, and the caller shows it.
// A derivation's stage is the one SetRoles gave it (Other for one it did
// not). A Tracker is not safe for concurrent use.
type Tracker struct {
	roles                 Roles
	planned, done, failed [numStages]int
	// listing is set while Nix lists the derivations it will build (one
	// message per line after "these N derivations will be built:").
	listing   bool
	running   map[uint64]string    // build activity -> derivation
	machine   map[uint64]string    // build activity -> remote machine ("" local)
	fetched   map[uint64]int64     // build activity -> bytes its transfers reported
	logs      map[uint64]*buildLog // build activity -> what its builder wrote last
	failedDrv map[string]bool      // derivations known to have failed
	depFailed [numStages]int       // derivations not built: one they need failed
	// builds is Nix's activity counting the builds (actBuilds), whose
	// progress is done, expected, running and failed builds;
	// buildsFailed is its failed count last reported. justFailed: the
	// count rose and no other event came since. Nix 2.34 reports a
	// failed build so, just before the build's stop, and names it only
	// later; Nix 2.8 and 2.26 name it first, and stop it at the end.
	builds       uint64
	buildsFailed int64
	justFailed   bool
	// File transfers are kept after they stop: Downloaded is the run's
	// total.
	transfers  map[uint64]int64  // file transfer activity -> bytes
	transferOf map[uint64]uint64 // file transfer activity (not stopped) -> its parent activity
}

// NewTracker returns a Tracker that has seen no event.
func NewTracker() *Tracker {
	return &Tracker{running: map[uint64]string{}, machine: map[uint64]string{},
		fetched: map[uint64]int64{}, logs: map[uint64]*buildLog{}, failedDrv: map[string]bool{},
		transfers: map[uint64]int64{}, transferOf: map[uint64]uint64{}}
}

// SetRoles tells the tracker the stage and subject of the run's
// derivations, before Nix lists what it will build.
func (t *Tracker) SetRoles(r Roles) { t.roles = r }

// Kind is what an event meant to the one watching.
type Kind int

const (
	// Nothing to show; the counts may have changed.
	Nothing Kind = iota
	// Duplicate: a remote builder's own report of a build already
	// running (ssh-ng forwards the builder's log). Nothing changed.
	Duplicate
	// Message: an error or warning of Nix's, in Update.Message.
	Message
	// Finished: a build stopped, described by Update.Build.
	Finished
	// Downloaded: a download outside any build (a substitution, a fetch
	// during evaluation) stopped after Update.Bytes bytes (never 0).
	Downloaded
	// LateFailure: Nix said a build failed that was reported Finished
	// without Failed (Update.Build, with Failed and its cause).
	LateFailure
	// DependencyFailed: a derivation was not built because one it needs
	// failed (Update.Build: Drv, Stage and Subject only).
	DependencyFailed
)

// Update is what Handle found in one event.
type Update struct {
	Kind    Kind
	Message string // Message: as Nix wrote it
	Build   Build  // Finished
	Bytes   int64  // Downloaded
}

// Build is a build that stopped.
type Build struct {
	Drv     string // the derivation's store path
	Stage   Stage
	Subject string // what the progress names it by (Role.Subject)
	Machine string // the remote machine it ran on ("" local)
	Bytes   int64  // what the downloads it started reported
	Failed  bool   // its builder failed
	// Cause is, for a failed build, the last error line its builder
	// wrote (Nix's own for builtin:fetchurl), else its last line ("" when
	// it wrote none).
	Cause string
	// Done and Planned count its stage: the builds stopped so far (this
	// one and the failed ones included) and those Nix listed.
	Done, Planned int
}

// Handle takes one event of the log, in order.
func (t *Tracker) Handle(ev Event) Update {
	justFailed := t.justFailed
	t.justFailed = false
	switch ev.Action {
	case "msg":
		return t.msg(ev)
	case "start":
		t.listing = false
		return t.start(ev)
	case "result":
		t.result(ev, justFailed)
	case "stop":
		return t.stop(ev.ID, justFailed)
	}
	return Update{}
}

func (t *Tracker) result(ev Event, justFailed bool) {
	switch {
	case ev.Type == ResBuildLogLine:
		if l, ok := t.logs[ev.ID]; ok {
			l.add(ev.StringField(0))
		}
		t.justFailed = justFailed
	case ev.ID == t.builds && ev.Type == ResProgress:
		failed := ev.IntField(3)
		t.justFailed = failed > t.buildsFailed
		t.buildsFailed = failed
	case ev.Type == ResProgress:
		if _, ok := t.transfers[ev.ID]; ok {
			t.transfers[ev.ID] = ev.IntField(0)
		}
		t.justFailed = justFailed
	default:
		t.justFailed = justFailed
	}
}

func (t *Tracker) msg(ev Event) Update {
	text := ansi.Strip(strings.TrimSpace(ev.Msg))
	switch {
	case strings.Contains(text, "will be built:"):
		t.listing = true
	case t.listing && strings.HasSuffix(text, ".drv"):
		t.planned[t.roles.Of(text).Stage]++
	default:
		t.listing = false
		if ev.Level > 1 { // below errors and warnings: Nix's chatter
			return Update{}
		}
		if drv, dependency, ok := failure(text); ok {
			return t.failure(drv, dependency)
		}
		if buildOf.MatchString(text) {
			// Every failed build is named already.
			return Update{}
		}
		return Update{Kind: Message, Message: ev.Msg}
	}
	return Update{}
}

// failure takes Nix's message that drv failed: a build still running
// finishes now, failed (Nix 2.8 and 2.26 stop its activity only at the
// end of the run); one reported finished already is a late failure;
// one that never ran failed for want of another.
func (t *Tracker) failure(drv string, dependency bool) Update {
	if t.failedDrv[drv] {
		return Update{}
	}
	role := t.roles.Of(drv)
	for id, d := range t.running {
		if d == drv {
			return Update{Kind: Finished, Build: t.finish(id, true)}
		}
	}
	t.failedDrv[drv] = true
	if dependency {
		t.depFailed[role.Stage]++
		return Update{Kind: DependencyFailed, Build: Build{Drv: drv, Stage: role.Stage, Subject: role.Subject}}
	}
	t.failed[role.Stage]++
	return Update{Kind: LateFailure, Build: Build{Drv: drv, Stage: role.Stage, Subject: role.Subject, Failed: true,
		Done: t.done[role.Stage], Planned: t.planned[role.Stage]}}
}

func (t *Tracker) start(ev Event) Update {
	switch ev.Type {
	case ActBuild:
		drv := ev.StringField(0)
		for _, d := range t.running {
			if d == drv {
				return Update{Kind: Duplicate}
			}
		}
		t.running[ev.ID] = drv
		t.machine[ev.ID] = ev.StringField(1)
		t.logs[ev.ID] = &buildLog{}
	case ActBuilds:
		t.builds = ev.ID
	case ActFileTransfer:
		t.transfers[ev.ID] = 0
		t.transferOf[ev.ID] = ev.Parent
	}
	return Update{}
}

func (t *Tracker) stop(id uint64, justFailed bool) Update {
	if drv, ok := t.running[id]; ok {
		return Update{Kind: Finished, Build: t.finish(id, justFailed || t.failedDrv[drv])}
	}
	// Another activity's stop (a download's) says nothing of the builds.
	t.justFailed = justFailed
	parent, ok := t.transferOf[id]
	if !ok {
		return Update{}
	}
	delete(t.transferOf, id)
	n := t.transfers[id]
	if _, building := t.running[parent]; building {
		t.fetched[parent] += n
		return Update{}
	}
	if n > 0 {
		return Update{Kind: Downloaded, Bytes: n}
	}
	return Update{}
}

// finish ends the build of activity id, failed or not.
func (t *Tracker) finish(id uint64, failed bool) Build {
	drv := t.running[id]
	role := t.roles.Of(drv)
	stage := role.Stage
	t.done[stage]++
	b := Build{Drv: drv, Stage: stage, Subject: role.Subject, Machine: t.machine[id], Bytes: t.fetched[id],
		Done: t.done[stage], Planned: t.planned[stage]}
	if failed {
		b.Failed, b.Cause = true, t.logs[id].cause()
		if !t.failedDrv[drv] {
			t.failedDrv[drv] = true
			t.failed[stage]++
		}
	}
	delete(t.running, id)
	delete(t.machine, id)
	delete(t.fetched, id)
	delete(t.logs, id)
	return b
}

// Planned is the number of derivations of stage s Nix said it will build.
func (t *Tracker) Planned(s Stage) int { return t.planned[s] }

// Done is the number of builds of stage s that stopped, failed or not.
func (t *Tracker) Done(s Stage) int { return t.done[s] }

// Failed is the number of derivations of stage s whose build failed.
func (t *Tracker) Failed(s Stage) int { return t.failed[s] }

// DependencyFailed is the number of derivations of stage s not built
// because one they need failed.
func (t *Tracker) DependencyFailed(s Stage) int { return t.depFailed[s] }

// Downloaded is the bytes all downloads reported so far, finished or not.
func (t *Tracker) Downloaded() int64 {
	var n int64
	for _, b := range t.transfers {
		n += b
	}
	return n
}

// Running is the names (DrvName) of the builds running, sorted.
func (t *Tracker) Running() []string {
	names := make([]string, 0, len(t.running))
	for _, drv := range t.running {
		names = append(names, DrvName(drv))
	}
	sort.Strings(names)
	return names
}

// maxCause bounds the line kept of a builder's log.
const maxCause = 512

// buildLog keeps what a builder wrote last: its last line, and its last
// error line (one that starts with "error:" and says something).
type buildLog struct{ last, lastError string }

func (l *buildLog) add(line string) {
	line = strings.TrimSpace(ansi.Strip(line))
	if line == "" || strings.HasPrefix(line, "…") {
		// Nix 2.34's builtin:fetchurl writes an empty "error:", a
		// "… writing file" trace, a blank line, then the cause.
		return
	}
	if len(line) > maxCause {
		line = line[:maxCause] + "…"
	}
	if rest, ok := strings.CutPrefix(line, "error:"); ok {
		if strings.TrimSpace(rest) == "" {
			return
		}
		l.lastError = line
	}
	l.last = line
}

// cause is the build's last error line, else its last line.
func (l *buildLog) cause() string {
	if l == nil {
		return ""
	}
	if l.lastError != "" {
		return l.lastError
	}
	return l.last
}
