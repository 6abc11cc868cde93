package buildercli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestRunExitStatuses: a command's result picks the exit status and what
// stderr says: 0 for success and help, 1 for a failure (named), 2 for a
// misuse (with the usage).
func TestRunExitStatuses(t *testing.T) {
	p := Program{Name: "prog", Usage: "usage: prog ok|fail|misuse|flags\n", Commands: []Command{
		{Name: "ok", Run: func(args []string, e Env) error {
			_, err := e.Stdout.Write([]byte(strings.Join(args, ",")))
			return err
		}},
		{Name: "fail", Run: func([]string, Env) error { return errors.New("broken thing") }},
		{Name: "misuse", Run: func([]string, Env) error { return Usagef("misuse takes %s", "nothing") }},
		{Name: "flags", Run: func(args []string, e Env) error {
			fs := Flags("flags", e.Stderr)
			fs.Bool("x", false, "a flag")
			_, err := Parse(fs, args, 1, "one FILE")
			return err
		}},
	}}
	for _, tc := range []struct {
		args                []string
		code                int
		inStdout, inStderr  string
		usageOnStderrAsWell bool
	}{
		{nil, 2, "", "usage: prog", false},
		{[]string{"--help"}, 0, "usage: prog", "", false},
		{[]string{"ok", "a", "b"}, 0, "a,b", "", false},
		{[]string{"fail"}, 1, "", "prog: broken thing", false},
		{[]string{"misuse"}, 2, "", "prog: usage: misuse takes nothing", true},
		{[]string{"nope"}, 2, "", `unknown command "nope" (ok, fail, misuse, flags)`, true},
		{[]string{"flags", "--no-such"}, 2, "", "flags: unknown flag: --no-such", true},
		{[]string{"flags", "a", "b"}, 2, "", "flags takes one FILE, got 2 arguments", true},
		{[]string{"flags", "a", "--x"}, 0, "", "", false},
		{[]string{"flags", "--help"}, 0, "", "-x", false},
	} {
		var stdout, stderr bytes.Buffer
		code := p.Run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.inStdout) || !strings.Contains(stderr.String(), tc.inStderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q on stdout, %q on stderr",
				tc.args, code, stdout.String(), stderr.String(), tc.code, tc.inStdout, tc.inStderr)
		}
		if tc.usageOnStderrAsWell && !strings.Contains(stderr.String(), p.Usage) {
			t.Errorf("%q: a misuse without the usage on stderr: %q", tc.args, stderr.String())
		}
	}
}
