package nixdriver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// settingsJSON is the shape of `nix show-config --json` (2.8 to 2.34):
// every setting an object with its value among other fields.
const settingsJSON = `{
 "sandbox": {"aliases": ["build-use-sandbox"], "defaultValue": true, "value": false},
 "store": {"value": "auto"},
 "substituters": {"value": ["https://cache.example/", "file:///srv/cache"]},
 "sandbox-paths": {"value": "/bin/sh=/usr/bin/bash-static"},
 "trusted-users": {"value": ["root", "@wheel"]},
 "trusted-substituters": {"value": ["file:///srv/trusted"]},
 "max-jobs": {"value": 2}
}`

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings([]byte(settingsJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Sandbox:             "false",
		Store:               "auto",
		Substituters:        []string{"https://cache.example/", "file:///srv/cache"},
		SandboxPaths:        []string{"/bin/sh=/usr/bin/bash-static"},
		TrustedUsers:        []string{"root", "@wheel"},
		TrustedSubstituters: []string{"file:///srv/trusted"},
	}
	if s.Sandbox != want.Sandbox || s.Store != want.Store ||
		!slices.Equal(s.Substituters, want.Substituters) ||
		!slices.Equal(s.SandboxPaths, want.SandboxPaths) ||
		!slices.Equal(s.TrustedSubstituters, want.TrustedSubstituters) ||
		!slices.Equal(s.TrustedUsers, want.TrustedUsers) {
		t.Errorf("got %+v, want %+v", s, want)
	}
	// Nix 2.34 gives sandbox-paths as an object.
	s, err = ParseSettings([]byte(`{"sandbox": {"value": true}, "sandbox-paths": {"value":
		{"/bin/sh": {"optional": false, "source": "/usr/bin/bash-static"},
		 "/etc/hosts": {"optional": true, "source": "/etc/hosts"}}}}`))
	if want := []string{"/bin/sh=/usr/bin/bash-static", "/etc/hosts?"}; err != nil || !slices.Equal(s.SandboxPaths, want) {
		t.Errorf("sandbox-paths of 2.34: got %q, %v; want %q", s.SandboxPaths, err, want)
	}
	relaxed, err := ParseSettings([]byte(`{"sandbox": {"value": "relaxed"}}`))
	if err != nil || relaxed.Sandbox != "relaxed" {
		t.Errorf(`sandbox "relaxed": got %+v, %v`, relaxed, err)
	}
}

func TestParseSettingsRefuses(t *testing.T) {
	for name, doc := range map[string]string{
		"not JSON":        `sandbox = false`,
		"no sandbox":      `{"store": {"value": "auto"}}`,
		"sandbox a list":  `{"sandbox": {"value": [true]}}`,
		"users a number":  `{"sandbox": {"value": true}, "trusted-users": {"value": 3}}`,
		"duplicate entry": `{"sandbox": {"value": true}, "sandbox": {"value": false}}`,
	} {
		if s, err := ParseSettings([]byte(doc)); err == nil {
			t.Errorf("%s: no error, got %+v", name, s)
		} else if !strings.Contains(err.Error(), "nix show-config --json") {
			t.Errorf("%s: error does not name the command: %v", name, err)
		}
	}
}

func TestTrusted(t *testing.T) {
	alice := Client{User: "alice", Groups: []string{"users", "wheel"}}
	for _, c := range []struct {
		users []string
		want  bool
	}{
		{[]string{"root"}, false},
		{[]string{"root", "alice"}, true},
		{[]string{"root", "@wheel"}, true},
		{[]string{"@alice"}, false},
		{[]string{"*"}, true},
		{nil, false},
	} {
		if got := (Settings{TrustedUsers: c.users}).Trusted(alice); got != c.want {
			t.Errorf("trusted-users %q: Trusted = %v, want %v", c.users, got, c.want)
		}
	}
}

func TestThroughDaemon(t *testing.T) {
	user, root := Client{User: "alice"}, Client{User: "root", Root: true}
	for _, c := range []struct {
		store  string
		client Client
		socket bool
		want   bool
	}{
		{"auto", user, true, true},
		{"auto", user, false, false},
		{"auto", root, true, false},
		{"daemon", root, false, true},
		{"unix:///run/nix.sock", root, false, true},
		{"local", user, true, false},
		{"ssh-ng://builder", user, true, false},
	} {
		if got := (Settings{Store: c.store}).ThroughDaemon(c.client, c.socket); got != c.want {
			t.Errorf("store %s, %+v, socket %v: ThroughDaemon = %v, want %v", c.store, c.client, c.socket, got, c.want)
		}
	}
}

func TestSandboxWarning(t *testing.T) {
	alice := Client{User: "alice"}
	off := Settings{Sandbox: "false", TrustedUsers: []string{"root"}}
	ask := [][2]string{{"sandbox", "true"}}
	w := off.SandboxWarning(ask, alice, true)
	for _, part := range []string{"sandbox = false", "alice", "trusted-users", "sandbox = true", "nix.conf"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning %q lacks %q", w, part)
		}
	}
	for name, got := range map[string]string{
		"no daemon: the option is honoured":  off.SandboxWarning(ask, alice, false),
		"trusted user":                       Settings{Sandbox: "false", TrustedUsers: []string{"alice"}}.SandboxWarning(ask, alice, true),
		"nix.conf has the sandbox":           Settings{Sandbox: "true"}.SandboxWarning(ask, alice, true),
		"no sandbox asked (--sandbox=false)": off.SandboxWarning(nil, alice, true),
		"asked, then turned off":             off.SandboxWarning(append(ask, [2]string{"sandbox", "false"}), alice, true),
	} {
		if got != "" {
			t.Errorf("%s: warned %q", name, got)
		}
	}
	if off := (Settings{Sandbox: "relaxed"}).SandboxWarning(ask, alice, true); !strings.Contains(off, "sandbox = relaxed") {
		t.Errorf("relaxed: warning %q", off)
	}
}

// TestReadSettingsMatchesNix: what ReadSettings finds is what the
// installed Nix prints as text (`nix show-config`, NAME = VALUE lines),
// on whichever version runs the test.
func TestReadSettingsMatchesNix(t *testing.T) {
	testenv.RequireNix(t, "nix")
	s, err := ReadSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("nix", "--extra-experimental-features", "nix-command", "show-config").Output()
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if name, value, ok := strings.Cut(sc.Text(), " = "); ok {
			text[name] = value
		}
	}
	for name, got := range map[string]string{
		"sandbox-paths":        strings.Join(s.SandboxPaths, " "),
		"sandbox":              s.Sandbox,
		"store":                s.Store,
		"substituters":         strings.Join(s.Substituters, " "),
		"trusted-users":        strings.Join(s.TrustedUsers, " "),
		"trusted-substituters": strings.Join(s.TrustedSubstituters, " "),
	} {
		if text[name] != got {
			t.Errorf("%s: ReadSettings %q, nix show-config %q", name, got, text[name])
		}
	}
}

// TestCheckSettingsReadsLocalDaemonStore: with --store daemon the settings
// are read (this machine's daemon); with a remote store they are not.
func TestCheckSettingsReadsLocalDaemonStore(t *testing.T) {
	testenv.RequireNix(t, "nix")
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	for store, want := range map[string]bool{"daemon": true, "ssh-ng://builder.invalid": false} {
		r := &Runner{Store: store}
		r.CheckSettings(context.Background(), discard)
		if r.settingsChecked != want {
			t.Errorf("--store %s: settings read %v, want %v", store, r.settingsChecked, want)
		}
	}
}

// TestUserConfDoesNotSilenceSandboxWarning: through a daemon whose
// nix.conf says sandbox = false and trusts someone else, a user whose own
// nix.conf (NIX_USER_CONF_FILES) and NIX_CONFIG claim sandbox = true and
// trusted-users = * still gets the warning: the daemon ignores a client's
// restricted settings, so its own nix.conf decides. With the sandbox on
// in the daemon's nix.conf, no warning.
func TestUserConfDoesNotSilenceSandboxWarning(t *testing.T) {
	testenv.RequireNix(t, "nix")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("NIX_USER_CONF_FILES", write("user/nix.conf", "sandbox = true\ntrusted-users = *\n"))
	t.Setenv("NIX_CONFIG", "sandbox = true")
	t.Setenv("NIX_CONF_DIR", filepath.Join(dir, "system"))
	for daemonSandbox, want := range map[string]bool{"false": true, "true": false} {
		write("system/nix.conf", "sandbox = "+daemonSandbox+"\ntrusted-users = crff-nobody-else\n")
		var log bytes.Buffer
		r := &Runner{Store: "daemon", Options: [][2]string{SandboxOption}}
		r.CheckSettings(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
		if got := strings.Contains(log.String(), "detections run unsandboxed"); got != want {
			t.Errorf("daemon's sandbox = %s, the user's true: warned %v, want %v:\n%s", daemonSandbox, got, want, log.String())
		}
		if want && !strings.Contains(log.String(), "client setting the daemon ignores") {
			t.Errorf("the warning does not say the user's sandbox = true is ignored:\n%s", log.String())
		}
		if r.untrusted == nil {
			t.Errorf("daemon's sandbox = %s: taken for a trusted user (the user's trusted-users = * counted)", daemonSandbox)
		}
	}
}
