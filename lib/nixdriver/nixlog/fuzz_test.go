package nixlog

import (
	"strings"
	"testing"
)

// FuzzTracker: any log is followed without a panic, and what Handle
// reports agrees with the counts (go test -fuzz FuzzTracker).
func FuzzTracker(f *testing.F) {
	f.Add(`@nix {"action":"msg","level":3,"msg":"these 2 derivations will be built:"}
@nix {"action":"msg","level":3,"msg":"  /nix/store/` + hash + `-x.tar.xz.drv"}
@nix {"action":"start","fields":["/nix/store/` + hash + `-x.tar.xz.drv","m",1,1],"id":1,"type":105}
@nix {"action":"start","fields":["/nix/store/` + hash + `-x.tar.xz.drv","",1,1],"id":3,"type":105}
@nix {"action":"start","id":2,"parent":1,"type":101}
@nix {"action":"result","fields":[1e30],"id":2,"type":105}
@nix {"action":"stop","id":2}
@nix {"action":"msg","level":0,"msg":"error: builder for '/nix/store/` + hash + `-x.tar.xz.drv' failed"}
@nix {"action":"stop","id":1}
@nix {"action":"start","id":4,"type":101}
@nix {"action":"result","fields":[-5],"id":4,"type":105}
@nix {"action":"stop","id":4}`)
	f.Add("plain\n@nix {\n@nix {\"action\":\"stop\"}")
	// Nix 2.34: the count of failed builds rises, the build stops, and
	// Nix names it after.
	f.Add(`@nix {"action":"start","id":5,"type":104}
@nix {"action":"start","fields":["/nix/store/` + hash + `-x.tar.xz.drv","",1,1],"id":6,"type":105}
@nix {"action":"result","fields":["\u001b[31;1merror:\u001b[0m boom"],"id":6,"type":101}
@nix {"action":"result","fields":[0,1,0,1],"id":5,"type":105}
@nix {"action":"stop","id":6}
@nix {"action":"msg","level":0,"msg":"error: Cannot build '/nix/store/` + hash + `-x.tar.xz.drv'.\n  Reason: 1 dependency failed."}
@nix {"action":"msg","level":0,"msg":"error: Cannot build '/nix/store/` + hash + `-y.drv'.\n  Reason: 1 dependency failed."}`)
	f.Fuzz(func(t *testing.T, log string) {
		tr := NewTracker()
		tr.SetRoles(Roles{"/nix/store/" + hash + "-x.tar.xz.drv": {Fetch, "x"}})
		finished := 0
		for _, line := range strings.Split(log, "\n") {
			if ev, ok := Parse(line); ok {
				u := tr.Handle(ev)
				checkUpdate(t, tr, ev, u)
				if u.Kind == Finished {
					finished++
				}
			}
		}
		done := 0
		for s := Fetch; s < numStages; s++ {
			done += tr.Done(s)
		}
		if done != finished {
			t.Fatalf("%d builds done, %d reported finished", done, finished)
		}
		if len(tr.Running()) != len(tr.running) {
			t.Fatalf("running %v of %d", tr.Running(), len(tr.running))
		}
	})
}

// checkUpdate checks what Handle said of ev against the counts.
func checkUpdate(t *testing.T, tr *Tracker, ev Event, u Update) {
	t.Helper()
	switch u.Kind {
	case Finished:
		checkFinished(t, tr, u.Build)
	case LateFailure, DependencyFailed:
		if !tr.failedDrv[u.Build.Drv] || u.Build.Failed != (u.Kind == LateFailure) {
			t.Fatalf("%+v", u)
		}
	case Downloaded:
		if u.Bytes <= 0 {
			t.Fatalf("downloaded %d bytes", u.Bytes)
		}
	case Message:
		if ev.Action != "msg" || ev.Level > 1 {
			t.Fatalf("message from %+v", ev)
		}
	}
}

func checkFinished(t *testing.T, tr *Tracker, b Build) {
	t.Helper()
	if b.Stage < Fetch || b.Stage >= numStages || b.Stage != tr.roles.Of(b.Drv).Stage || b.Subject != tr.roles.Of(b.Drv).Subject {
		t.Fatalf("stage %d of %q", b.Stage, b.Drv)
	}
	if b.Done != tr.Done(b.Stage) || b.Planned != tr.Planned(b.Stage) {
		t.Fatalf("build %+v, counts done %d planned %d", b, tr.Done(b.Stage), tr.Planned(b.Stage))
	}
}
