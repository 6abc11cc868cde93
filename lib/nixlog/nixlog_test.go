package nixlog

import "testing"

// Lines as Nix 2.8's nix-store --realise --log-format internal-json writes them.
func TestParse(t *testing.T) {
	ev, ok := Parse(`@nix {"action":"start","fields":["/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv","",1,1],"id":34479997452293,"level":3,"text":"building '/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv'","type":105}`)
	if !ok || ev.Action != "start" || ev.Type != ActBuild || ev.ID != 34479997452293 || ev.StringField(0) != "/nix/store/lyn0s6dgm3n0sals23xxgwy95285xzxd-t.drv" || ev.IntField(2) != 1 {
		t.Errorf("start: %+v %v", ev, ok)
	}
	ev, ok = Parse(`@nix {"action":"result","fields":[1024,4096],"id":7,"type":105}` + "\n")
	if !ok || ev.Action != "result" || ev.IntField(0) != 1024 || ev.IntField(1) != 4096 || ev.StringField(0) != "" {
		t.Errorf("result: %+v %v", ev, ok)
	}
	ev, ok = Parse(`@nix {"action":"msg","level":0,"msg":"error: builder for '/nix/store/x.drv' failed"}`)
	if !ok || ev.Level != 0 || ev.Msg == "" {
		t.Errorf("msg: %+v", ev)
	}
	for _, bad := range []string{"building '/nix/store/x.drv'...", "@nix {", "@nix", ""} {
		if _, ok := Parse(bad); ok {
			t.Errorf("%q parsed as an event", bad)
		}
	}
}
