package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
)

// progressRoles are what the driver says of the tests' derivations
// (nixdriver.Plan.Roles): the stages of archive x's, y's unpack, an
// aggregate. stray.tar.xz is no derivation of the run's.
func progressRoles(h string) nixlog.Roles {
	drv := func(name string) string { return "/nix/store/" + h + "-" + name + ".drv" }
	return nixlog.Roles{
		drv("x.tar.xz"):              {Stage: nixlog.Fetch, Subject: "x"},
		drv("x"):                     {Stage: nixlog.Unpack, Subject: "x"},
		drv("y"):                     {Stage: nixlog.Unpack, Subject: "y"},
		drv("x-features.json"):       {Stage: nixlog.Detect, Subject: "x"},
		drv("sample-1.0.0-features"): {Stage: nixlog.Aggregate, Subject: "sample-1.0.0-features"},
	}
}

// TestNixProgress feeds the status line events shaped like Nix 2.8's
// internal-json log: the plan, builds starting and stopping, a download,
// a failure, and a plain line.
func TestNixProgress(t *testing.T) {
	const h = "0123456789abcdfghijklmnpqrsvwxyz"
	events := []string{
		`@nix {"action":"msg","level":3,"msg":"these 4 derivations will be built:"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x.tar.xz.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x-features.json.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-sample-1.0.0-features.drv"}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x.tar.xz.drv","",1,1],"id":1,"level":3,"text":"building","type":105}`,
		`@nix {"action":"start","id":2,"level":4,"text":"downloading","type":101}`,
		`@nix {"action":"result","fields":[2097152,4194304],"id":2,"type":105}`,
		`@nix {"action":"stop","id":2}`,
		`@nix {"action":"stop","id":1}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x.drv","",1,1],"id":3,"level":3,"text":"building","type":105}`,
		`@nix {"action":"result","fields":["error: unpack x.tar.xz: corrupt or truncated archive"],"id":3,"type":101}`,
		`@nix {"action":"msg","level":0,"msg":"\u001b[31;1merror:\u001b[0m builder for '\u001b[35;1m/nix/store/` + h + `-x.drv\u001b[0m' failed with exit code 1"}`,
		`@nix {"action":"stop","id":3}`,
		`a line Nix wrote as is`,
	}
	var out bytes.Buffer
	p := newNixProgress(&out)
	p.setRoles(progressRoles(h))
	// In pieces, as a pipe delivers them.
	all := strings.Join(events, "\n") + "\n"
	for i := 0; i < len(all); i += 7 {
		p.Write([]byte(all[i:min(i+7, len(all))]))
	}
	p.finish()
	got := out.String()
	for _, want := range []string{
		"\r\033[Karchives: fetched 0/1, unpacked 0/1, detected 0/1; building x.tar.xz",
		"fetched 0/1, unpacked 0/1, detected 0/1, 2.0 MiB downloaded; building x.tar.xz",
		"fetched 1/1, unpacked 0/1, detected 0/1, 2.0 MiB downloaded; building x\r\033[K",
		"\r\033[Kfailed x (unpack): error: unpack x.tar.xz: corrupt or truncated archive\n",
		"fetched 1/1, unpacked 0/1 (1 failed), detected 0/1",
		"\r\033[Ka line Nix wrote as is\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, "@nix") || strings.Contains(got, "will be built") {
		t.Errorf("Nix's own plan or JSON shown: %q", got)
	}
	if !strings.HasSuffix(got, "\n1 unpack failed: error: unpack …: corrupt or truncated archive\n  x\n") {
		t.Errorf("status line not ended, or no summary of the failure: %q", got)
	}
}

// TestNixEventLines: with stderr not a terminal, one line per finished
// derivation (stage, archive name, count of the stage, the bytes its
// download reported, the remote machine), a failure named with its stage,
// Nix's errors and plain lines as they come, and no status line.
func TestNixEventLines(t *testing.T) {
	const h = "0123456789abcdfghijklmnpqrsvwxyz"
	events := []string{
		`@nix {"action":"msg","level":3,"msg":"these 5 derivations will be built:"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x.tar.xz.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-y.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-x-features.json.drv"}`,
		`@nix {"action":"msg","level":3,"msg":"  /nix/store/` + h + `-sample-1.0.0-features.drv"}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x.tar.xz.drv","",1,1],"id":1,"level":3,"text":"building","type":105}`,
		`@nix {"action":"start","id":2,"level":4,"parent":1,"text":"downloading","type":101}`,
		`@nix {"action":"result","fields":[3145728,4194304],"id":2,"type":105}`,
		`@nix {"action":"stop","id":2}`,
		`@nix {"action":"stop","id":1}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x.drv","ssh-ng://b",1,1],"id":3,"level":3,"text":"building","type":105}`,
		// The builder's own report of the same build, forwarded by ssh-ng.
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x.drv","",1,1],"id":30,"level":3,"text":"building","type":105}`,
		`@nix {"action":"stop","id":30}`,
		`@nix {"action":"stop","id":3}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-y.drv","",1,1],"id":4,"level":3,"text":"building","type":105}`,
		`@nix {"action":"result","fields":["reading y.tar.xz"],"id":4,"type":101}`,
		`@nix {"action":"result","fields":["error: unpack y.tar.xz: corrupt or truncated archive"],"id":4,"type":101}`,
		`@nix {"action":"result","fields":["done"],"id":4,"type":101}`,
		`@nix {"action":"msg","level":1,"msg":"warning: unable to download 'http://h.invalid/y.tar.xz': Could not resolve hostname (6); retrying in 278 ms (attempt 1/5)"}`,
		`@nix {"action":"msg","level":0,"msg":"error: builder for '/nix/store/` + h + `-y.drv' failed with exit code 1"}`,
		`@nix {"action":"stop","id":4}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-x-features.json.drv","",1,1],"id":5,"level":3,"text":"building","type":105}`,
		`@nix {"action":"stop","id":5}`,
		`@nix {"action":"start","fields":["/nix/store/` + h + `-sample-1.0.0-features.drv","",1,1],"id":6,"level":3,"text":"building","type":105}`,
		`@nix {"action":"stop","id":6}`,
		// Named like a fetch, but no derivation the driver named.
		`@nix {"action":"start","fields":["/nix/store/` + h + `-stray.tar.xz.drv","",1,1],"id":8,"level":3,"text":"building","type":105}`,
		`@nix {"action":"stop","id":8}`,
		`@nix {"action":"start","id":7,"level":4,"text":"downloading","type":101}`,
		`@nix {"action":"result","fields":[1048576,1048576],"id":7,"type":105}`,
		`@nix {"action":"stop","id":7}`,
		`a line Nix wrote as is`,
	}
	var out bytes.Buffer
	p := newNixEventLines(&out)
	p.setRoles(progressRoles(h))
	all := strings.Join(events, "\n") + "\n"
	for i := 0; i < len(all); i += 5 {
		p.Write([]byte(all[i:min(i+5, len(all))]))
	}
	p.finish()
	want := strings.Join([]string{
		"fetched x (1/1), 3.0 MiB",
		"unpacked x (1/2) on ssh-ng://b",
		// The builder's last error line, not Nix's word nor its retries.
		"failed y (unpack): error: unpack y.tar.xz: corrupt or truncated archive",
		"detected x (1/1)",
		"built sample-1.0.0-features",
		"built stray.tar.xz",
		"downloaded 1.0 MiB",
		"a line Nix wrote as is",
		"1 unpack failed: error: unpack …: corrupt or truncated archive",
		"  y",
	}, "\n") + "\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzNixProgress: any log, in either mode, is read without a panic and
// never shows Nix's JSON lines (go test -fuzz FuzzNixProgress).
func FuzzNixProgress(f *testing.F) {
	f.Add(`@nix {"action":"start","fields":["/nix/store/x-y.drv","m",1,1],"id":1,"type":105}` + "\n" + `@nix {"action":"stop","id":1}` + "\n")
	f.Add(`@nix {"action":"start","id":2,"parent":1,"type":101}` + "\n" + `@nix {"action":"result","fields":[1e30],"id":2,"type":105}` + "\n" + `@nix {"action":"stop","id":2}` + "\n")
	f.Add("plain\n@nix {\n")
	f.Fuzz(func(t *testing.T, log string) {
		for _, p := range []*nixProgress{newNixProgress(io.Discard), newNixEventLines(io.Discard)} {
			p.Write([]byte(log))
			p.finish()
		}
	})
}

// TestStderrGone runs this test again in a child whose stderr is a pipe
// nobody reads (`... 2>&1 | head -1` once head is done, a log shipper
// that died): neither progress lines nor log lines end the run, which
// writes its result to stdout. Go kills a program with SIGPIPE on a failed
// write to fd 1 or 2.
func TestStderrGone(t *testing.T) {
	switch os.Getenv("CRFF_TEST_STDERR_GONE") {
	case "progress":
		p := newNixEventLines(stderrFor(os.Stderr))
		p.Write([]byte(`@nix {"action":"start","fields":["/nix/store/x-y.drv","",1,1],"id":1,"type":105}` + "\n" +
			`@nix {"action":"stop","id":1}` + "\n" + "a line Nix wrote as is\n"))
		p.finish()
		fmt.Println("the run goes on")
		return
	case "log":
		// The program as it starts: the log line comes before the result.
		os.Args = []string{prog, "--log-level", "INFO", "detect", "testdata"}
		main()
	}
	for _, tc := range []struct{ child, want string }{
		{"progress", "the run goes on"},
		{"log", `"buildRedist"`},
	} {
		t.Run(tc.child, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			defer w.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStderrGone$")
			cmd.Env = append(os.Environ(), "CRFF_TEST_STDERR_GONE="+tc.child)
			cmd.Stderr = w
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("with stderr a pipe nobody reads: %v\n%s", err, out)
			}
		})
	}
}

// TestNixProgressFailureOnce: a derivation that fails in one
// nix-store --realise of a run and again in the next (process-manifests
// builds the unpacks, then the detections that need them, and Nix tries
// a failed build again each time it is asked for it) is one failure,
// said once and counted once.
func TestNixProgressFailureOnce(t *testing.T) {
	const h = "0123456789abcdfghijklmnpqrsvwxyz"
	fail := func(id int) string {
		return fmt.Sprintf(`@nix {"action":"start","fields":["/nix/store/`+h+`-x.drv","",1,1],"id":%d,"level":3,"text":"building","type":105}`, id) + "\n" +
			fmt.Sprintf(`@nix {"action":"result","fields":["error: unpack x.tar.xz: corrupt or truncated archive"],"id":%d,"type":101}`, id) + "\n" +
			`@nix {"action":"msg","level":0,"msg":"error: builder for '/nix/store/` + h + `-x.drv' failed with exit code 1"}` + "\n" +
			fmt.Sprintf(`@nix {"action":"stop","id":%d}`, id) + "\n"
	}
	var out bytes.Buffer
	p := newNixEventLines(&out)
	p.setRoles(progressRoles(h))
	p.Write([]byte(fail(1)))
	p.Write([]byte(fail(2)))
	p.finish()
	got := out.String()
	if n := strings.Count(got, "failed x (unpack): error: unpack x.tar.xz: corrupt or truncated archive\n"); n != 1 {
		t.Errorf("the failure said %d times, want once:\n%s", n, got)
	}
	if !strings.HasSuffix(got, "\n1 unpack failed: error: unpack …: corrupt or truncated archive\n  x\n") {
		t.Errorf("no summary of one failure:\n%s", got)
	}
}
