package nixlog

import (
	"reflect"
	"strings"
	"testing"
)

const hash = "0123456789abcdfghijklmnpqrsvwxyz"

func drv(name string) string { return "/nix/store/" + hash + "-" + name + ".drv" }

// roles are what the driver says of the tests' derivations. Their names
// look like nix/pipeline.nix's, except trap.tar.xz: named like a fetch,
// it is a detection, and counts as one.
var roles = Roles{
	drv("x.tar.xz"):        {Fetch, "x"},
	drv("x.tar.gz"):        {Fetch, "x"},
	drv("a.zip"):           {Fetch, "a"},
	drv("x"):               {Unpack, "x"},
	drv("y"):               {Unpack, "y"},
	drv("z"):               {Unpack, "z"},
	drv("c"):               {Unpack, "c"},
	drv("d"):               {Unpack, "d"},
	drv("x-features.json"): {Detect, "x"},
	drv("b-features.json"): {Detect, "b"},
	drv("trap.tar.xz"):     {Detect, "trap"},
	drv("r-1.0-features"):  {Aggregate, "r-1.0-features"},
}

// Events as Nix 2.8 writes them (see TestParse for the JSON).
func msg(level int, text string) Event { return Event{Action: "msg", Level: level, Msg: text} }
func build(id uint64, drvPath, machine string) Event {
	return Event{Action: "start", ID: id, Type: ActBuild, Fields: []any{drvPath, machine, 1.0, 1.0}}
}
func transfer(id, parent uint64) Event {
	return Event{Action: "start", ID: id, Parent: parent, Type: ActFileTransfer}
}
func progress(id uint64, done int64) Event {
	return Event{Action: "result", ID: id, Type: ResProgress, Fields: []any{float64(done), float64(2 * done)}}
}
func stop(id uint64) Event { return Event{Action: "stop", ID: id} }

func plan(drvs ...string) []Event {
	evs := []Event{msg(3, "these derivations will be built:")}
	for _, d := range drvs {
		evs = append(evs, msg(3, "  "+d))
	}
	return evs
}

// counts is the Tracker's state after the events, as its accessors say.
type counts struct {
	planned, done, failed [numStages]int
	downloaded            int64
	running               []string
}

func countsOf(t *Tracker) counts {
	var c counts
	for s := Fetch; s < numStages; s++ {
		c.planned[s], c.done[s], c.failed[s] = t.Planned(s), t.Done(s), t.Failed(s)
	}
	c.downloaded, c.running = t.Downloaded(), t.Running()
	return c
}

func TestTracker(t *testing.T) {
	nothing := Update{}
	for _, tc := range []struct {
		name   string
		events []Event
		want   []Update // one per event
		counts counts
	}{{
		name:   "plan",
		events: append(plan(drv("x.tar.xz"), drv("x"), drv("y"), drv("x-features.json"), drv("r-1.0-features")), msg(3, "  not a derivation"), msg(3, "  "+drv("late"))),
		want:   []Update{nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing},
		counts: counts{planned: [numStages]int{Fetch: 1, Unpack: 2, Detect: 1, Aggregate: 1}, running: []string{}},
	}, {
		// The stage is the driver's: a name is never read for one.
		name: "the driver's stage, not the name's",
		events: append(plan(drv("trap.tar.xz"), drv("stray.tar.xz"), drv("stray-features.json")),
			build(1, drv("trap.tar.xz"), ""), stop(1), build(2, drv("stray.tar.xz"), ""), stop(2),
			msg(0, "error: builder for '"+drv("stray-features.json")+"' failed with exit code 1")),
		want: []Update{nothing, nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("trap.tar.xz"), Stage: Detect, Subject: "trap", Done: 1, Planned: 1}}, nothing,
			{Kind: Finished, Build: Build{Drv: drv("stray.tar.xz"), Stage: Other, Subject: "stray.tar.xz", Done: 1, Planned: 2}},
			// Named failed, never started: not counted done.
			{Kind: LateFailure, Build: Build{Drv: drv("stray-features.json"), Stage: Other, Subject: "stray-features.json", Failed: true, Done: 1, Planned: 2}}},
		counts: counts{planned: [numStages]int{Detect: 1, Other: 2}, done: [numStages]int{Detect: 1, Other: 1},
			failed: [numStages]int{Other: 1}, running: []string{}},
	}, {
		name:   "a start ends the plan",
		events: append(plan(drv("x")), build(1, drv("y"), ""), msg(3, "  "+drv("z"))),
		want:   []Update{nothing, nothing, nothing, nothing},
		counts: counts{planned: [numStages]int{Unpack: 1}, running: []string{"y"}},
	}, {
		name: "build on a remote machine",
		events: append(plan(drv("x"), drv("y")), build(1, drv("x"), "ssh-ng://b"),
			stop(1)),
		want: []Update{nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("x"), Stage: Unpack, Subject: "x", Machine: "ssh-ng://b", Done: 1, Planned: 2}}},
		counts: counts{planned: [numStages]int{Unpack: 2}, done: [numStages]int{Unpack: 1}, running: []string{}},
	}, {
		name: "a forwarded duplicate is not counted",
		events: []Event{build(1, drv("x"), "ssh-ng://b"), build(30, drv("x"), ""), stop(30),
			stop(1)},
		want: []Update{nothing, {Kind: Duplicate}, nothing,
			{Kind: Finished, Build: Build{Drv: drv("x"), Stage: Unpack, Subject: "x", Machine: "ssh-ng://b", Done: 1}}},
		counts: counts{done: [numStages]int{Unpack: 1}, running: []string{}},
	}, {
		name: "the same derivation again once stopped is a new build",
		events: []Event{build(1, drv("x"), ""), stop(1), build(2, drv("x"), ""),
			stop(2)},
		want: []Update{nothing, {Kind: Finished, Build: Build{Drv: drv("x"), Stage: Unpack, Subject: "x", Done: 1}}, nothing,
			{Kind: Finished, Build: Build{Drv: drv("x"), Stage: Unpack, Subject: "x", Done: 2}}},
		counts: counts{done: [numStages]int{Unpack: 2}, running: []string{}},
	}, {
		name: "bytes of a transfer go to its build",
		events: []Event{build(1, drv("x.tar.gz"), ""), transfer(2, 1), progress(2, 1000), progress(2, 3000), stop(2),
			transfer(3, 1), progress(3, 500), stop(3), stop(1)},
		want: []Update{nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("x.tar.gz"), Stage: Fetch, Subject: "x", Bytes: 3500, Done: 1}}},
		counts: counts{done: [numStages]int{Fetch: 1}, downloaded: 3500, running: []string{}},
	}, {
		name:   "a transfer outside a build",
		events: []Event{transfer(7, 0), progress(7, 1<<20), stop(7)},
		want:   []Update{nothing, nothing, {Kind: Downloaded, Bytes: 1 << 20}},
		counts: counts{downloaded: 1 << 20, running: []string{}},
	}, {
		name:   "a transfer that outlives its build, and an empty one",
		events: []Event{build(1, drv("x"), ""), transfer(2, 1), transfer(3, 0), stop(1), progress(2, 10), stop(2), stop(3)},
		want: []Update{nothing, nothing, nothing, {Kind: Finished, Build: Build{Drv: drv("x"), Stage: Unpack, Subject: "x", Done: 1}},
			nothing, {Kind: Downloaded, Bytes: 10}, nothing},
		counts: counts{done: [numStages]int{Unpack: 1}, downloaded: 10, running: []string{}},
	}, {
		name:   "a transfer still running counts in the total",
		events: []Event{transfer(2, 0), progress(2, 10), transfer(3, 0), progress(3, 5)},
		want:   []Update{nothing, nothing, nothing, nothing},
		counts: counts{downloaded: 15, running: []string{}},
	}, {
		name: "failed build",
		events: append(plan(drv("y"), drv("z")), build(4, drv("y"), ""),
			msg(0, "error: builder for '"+drv("y")+"' failed with exit code 1"), stop(4)),
		// Finished when Nix names it (2.8 stops it at the end of the run).
		want: []Update{nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("y"), Stage: Unpack, Subject: "y", Failed: true, Done: 1, Planned: 2}},
			nothing},
		counts: counts{planned: [numStages]int{Unpack: 2}, done: [numStages]int{Unpack: 1}, failed: [numStages]int{Unpack: 1}, running: []string{}},
	}, {
		// Nix 2.34: the builds' failed count rises, then the failed
		// build stops (a download's stop between them), then Nix names
		// it; a build that stops after another event did not fail.
		name: "failed build as Nix 2.34 reports it",
		events: append(plan(drv("y"), drv("z")), Event{Action: "start", ID: 9, Type: ActBuilds},
			build(4, drv("y"), ""), build(5, drv("z"), ""), transfer(6, 4),
			Event{Action: "result", ID: 4, Type: ResBuildLogLine, Fields: []any{"\x1b[31;1merror:\x1b[0m bad archive"}},
			Event{Action: "result", ID: 4, Type: ResBuildLogLine, Fields: []any{""}},
			Event{Action: "result", ID: 9, Type: ResProgress, Fields: []any{0.0, 2.0, 1.0, 1.0}},
			stop(6), stop(4),
			Event{Action: "result", ID: 9, Type: ResProgress, Fields: []any{1.0, 2.0, 0.0, 1.0}}, stop(5),
			msg(0, "error: Cannot build '"+drv("y")+"'.\n       Reason: builder failed with exit code 1.")),
		want: []Update{nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("y"), Stage: Unpack, Subject: "y", Failed: true, Cause: "error: bad archive", Done: 1, Planned: 2}},
			nothing,
			{Kind: Finished, Build: Build{Drv: drv("z"), Stage: Unpack, Subject: "z", Done: 2, Planned: 2}},
			nothing},
		counts: counts{planned: [numStages]int{Unpack: 2}, done: [numStages]int{Unpack: 2}, failed: [numStages]int{Unpack: 1}, running: []string{}},
	}, {
		name:   "warnings show, chatter does not",
		events: []Event{msg(1, "warning: w\n"), msg(2, "notice"), msg(3, "building '"+drv("x")+"'...")},
		want:   []Update{{Kind: Message, Message: "warning: w\n"}, nothing, nothing},
		counts: counts{running: []string{}},
	}, {
		name: "running builds by name",
		events: []Event{build(1, drv("b-features.json"), ""), build(2, drv("a.zip"), "m"), build(3, drv("c"), ""),
			build(4, drv("d"), ""), stop(3)},
		want: []Update{nothing, nothing, nothing, nothing,
			{Kind: Finished, Build: Build{Drv: drv("c"), Stage: Unpack, Subject: "c", Done: 1}}},
		counts: counts{done: [numStages]int{Unpack: 1}, running: []string{"a.zip", "b-features.json", "d"}},
	}, {
		name: "what it does not know",
		events: []Event{stop(9), progress(9, 10), {Action: "result", ID: 2, Type: 104, Fields: []any{5.0}},
			transfer(2, 0), {Action: "result", ID: 2, Type: 104, Fields: []any{5.0}}, {Action: "start", ID: 5, Type: 102},
			{Action: "setPhase"}, build(6, "", "")},
		want: []Update{nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing},
		// A build without a derivation is named as path.Base names "".
		counts: counts{running: []string{"."}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.want) != len(tc.events) {
				t.Fatalf("%d events, %d updates wanted", len(tc.events), len(tc.want))
			}
			tr := NewTracker()
			tr.SetRoles(roles)
			for i, ev := range tc.events {
				if got := tr.Handle(ev); !reflect.DeepEqual(got, tc.want[i]) {
					t.Errorf("event %d %+v:\ngot  %+v\nwant %+v", i, ev, got, tc.want[i])
				}
			}
			if got := countsOf(tr); !reflect.DeepEqual(got, tc.counts) {
				t.Errorf("counts:\ngot  %+v\nwant %+v", got, tc.counts)
			}
		})
	}
}

// TestRoles: a derivation has the role the driver gave it; any other is
// Other, named by its derivation's name.
func TestRoles(t *testing.T) {
	for _, tc := range []struct {
		roles   Roles
		drvPath string
		want    Role
	}{
		{roles, drv("trap.tar.xz"), Role{Detect, "trap"}},
		{roles, drv("r-1.0-features"), Role{Aggregate, "r-1.0-features"}},
		// Named like a fetch, an unpack and a detection: none of them.
		{roles, drv("stray.tar.xz"), Role{Other, "stray.tar.xz"}},
		{roles, drv("stray"), Role{Other, "stray"}},
		{roles, drv("stray-features.json"), Role{Other, "stray-features.json"}},
		{nil, drv("x.tar.xz"), Role{Other, "x.tar.xz"}},
		// The path, not the name: another hash is another derivation.
		{roles, "/nix/store/" + strings.Repeat("0", 32) + "-x.tar.xz.drv", Role{Other, "x.tar.xz"}},
	} {
		if got := tc.roles.Of(tc.drvPath); got != tc.want {
			t.Errorf("Of(%q) = %+v, want %+v", tc.drvPath, got, tc.want)
		}
	}
}

func TestDrvName(t *testing.T) {
	for drvPath, name := range map[string]string{
		drv("cuda_nvcc-linux-x86_64-11.8.89-archive.tar.xz"): "cuda_nvcc-linux-x86_64-11.8.89-archive.tar.xz",
		drv("cuda-11.8.0-features"):                          "cuda-11.8.0-features",
		"x-features.json.drv":                                "x-features.json",
		// Not a store hash before the first '-': the name is kept whole.
		"/nix/store/short-x.drv": "short-x",
	} {
		if got := DrvName(drvPath); got != name {
			t.Errorf("DrvName(%q) = %q, want %q", drvPath, got, name)
		}
	}
}
