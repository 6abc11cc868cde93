package nixlog

import (
	"sort"
	"strings"
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
	running   map[uint64]string // build activity -> derivation
	machine   map[uint64]string // build activity -> remote machine ("" local)
	fetched   map[uint64]int64  // build activity -> bytes its transfers reported
	failedDrv map[string]bool   // derivations Nix said failed
	// File transfers are kept after they stop: Downloaded is the run's
	// total.
	transfers  map[uint64]int64  // file transfer activity -> bytes
	transferOf map[uint64]uint64 // file transfer activity (not stopped) -> its parent activity
}

// NewTracker returns a Tracker that has seen no event.
func NewTracker() *Tracker {
	return &Tracker{running: map[uint64]string{}, machine: map[uint64]string{},
		fetched: map[uint64]int64{}, failedDrv: map[string]bool{},
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
	Failed  bool   // Nix said its builder failed
	// Done and Planned count its stage: the builds stopped so far (this
	// one and the failed ones included) and those Nix listed.
	Done, Planned int
}

// Handle takes one event of the log, in order.
func (t *Tracker) Handle(ev Event) Update {
	switch ev.Action {
	case "msg":
		return t.msg(ev)
	case "start":
		t.listing = false
		return t.start(ev)
	case "result":
		if _, ok := t.transfers[ev.ID]; ok && ev.Type == ResProgress {
			t.transfers[ev.ID] = ev.IntField(0)
		}
	case "stop":
		return t.stop(ev.ID)
	}
	return Update{}
}

func (t *Tracker) msg(ev Event) Update {
	text := strings.TrimSpace(ev.Msg)
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
		if m := failedBuilder.FindStringSubmatch(ev.Msg); m != nil {
			t.failed[t.roles.Of(m[1]).Stage]++
			t.failedDrv[m[1]] = true
		}
		return Update{Kind: Message, Message: ev.Msg}
	}
	return Update{}
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
	case ActFileTransfer:
		t.transfers[ev.ID] = 0
		t.transferOf[ev.ID] = ev.Parent
	}
	return Update{}
}

func (t *Tracker) stop(id uint64) Update {
	if drv, ok := t.running[id]; ok {
		role := t.roles.Of(drv)
		stage := role.Stage
		t.done[stage]++
		b := Build{Drv: drv, Stage: stage, Subject: role.Subject, Machine: t.machine[id], Bytes: t.fetched[id],
			Failed: t.failedDrv[drv], Done: t.done[stage], Planned: t.planned[stage]}
		delete(t.running, id)
		delete(t.machine, id)
		delete(t.fetched, id)
		return Update{Kind: Finished, Build: b}
	}
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

// Planned is the number of derivations of stage s Nix said it will build.
func (t *Tracker) Planned(s Stage) int { return t.planned[s] }

// Done is the number of builds of stage s that stopped, failed or not.
func (t *Tracker) Done(s Stage) int { return t.done[s] }

// Failed is the number of derivations of stage s Nix said failed.
func (t *Tracker) Failed(s Stage) int { return t.failed[s] }

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
