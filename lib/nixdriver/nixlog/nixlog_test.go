package nixlog

import (
	"reflect"
	"testing"
)

// Lines as Nix 2.8's nix-store --realise --log-format internal-json writes them.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line       string
		want       Event
		str0       string
		int0, int2 int64
	}{{
		line: `@nix {"action":"start","fields":["/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv","",1,1],"id":34479997452293,"level":3,"text":"building '/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv'","type":105}`,
		want: Event{Action: "start", ID: 34479997452293, Level: 3, Type: ActBuild, Text: "building '/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv'",
			Fields: []any{"/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv", "", 1.0, 1.0}},
		str0: "/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv", int2: 1,
	}, {
		line: `@nix {"action":"start","id":2,"level":4,"parent":1,"text":"downloading","type":101}`,
		want: Event{Action: "start", ID: 2, Parent: 1, Level: 4, Type: ActFileTransfer, Text: "downloading"},
	}, {
		line: `@nix {"action":"result","fields":[1024,4096],"id":7,"type":105}` + "\n",
		want: Event{Action: "result", ID: 7, Type: ResProgress, Fields: []any{1024.0, 4096.0}},
		int0: 1024,
	}, {
		line: `@nix {"action":"msg","level":0,"msg":"error: builder for '/nix/store/x.drv' failed"}`,
		want: Event{Action: "msg", Msg: "error: builder for '/nix/store/x.drv' failed"},
	}} {
		ev, ok := Parse(tc.line)
		if !ok || !reflect.DeepEqual(ev, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.line, ev, ok, tc.want)
		}
		if ev.StringField(0) != tc.str0 || ev.IntField(0) != tc.int0 || ev.IntField(2) != tc.int2 {
			t.Errorf("%q: fields %q %d %d, want %q %d %d", tc.line, ev.StringField(0), ev.IntField(0), ev.IntField(2), tc.str0, tc.int0, tc.int2)
		}
	}
	for _, bad := range []string{"building '/nix/store/x.drv'...", "@nix {", "@nix", ""} {
		if _, ok := Parse(bad); ok {
			t.Errorf("%q parsed as an event", bad)
		}
	}
}

func TestIsRetryNotice(t *testing.T) {
	for line, want := range map[string]bool{
		"warning: error: SQLite database '/nix/var/nix/db/db.sqlite' is busy":   true,
		"warning: SQLite database '/nix/var/nix/db/db.sqlite' is busy\r":        true,
		"error: SQLite database '/nix/var/nix/db/db.sqlite' is busy":            false,
		"warning: error: SQLite database '/nix/var/nix/db/db.sqlite' is locked": false,
		"error: builder for '/nix/store/x.drv' failed with exit code 1":         false,
		"": false,
		// A download Nix tries again, as 2.8 and 2.34 say so, with colours.
		"\x1b[35;1mwarning:\x1b[0m \x1b[31;1merror:\x1b[0m unable to download 'http://127.0.0.1:9/a.tar.xz': Couldn't connect to server (7); retrying in 288 ms":      true,
		"warning: unable to download 'http://h.invalid/a.tar.xz': Could not resolve hostname (6) Could not resolve host: h.invalid; retrying in 278 ms (attempt 1/5)": true,
		// The download failed for good.
		"error: unable to download 'http://h.invalid/a.tar.xz': Couldn't resolve host name (6)": false,
	} {
		if got := IsRetryNotice(line); got != want {
			t.Errorf("IsRetryNotice(%q) = %v, want %v", line, got, want)
		}
	}
}
