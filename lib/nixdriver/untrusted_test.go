package nixdriver

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRestrictedForUntrusted: the settings a nix-daemon ignores from a
// client not in trusted-users, as Nix 2.26 and 2.34 do (each "restricted"
// one here printed "ignoring the client-specified setting" through a
// daemon; each other one did not).
func TestRestrictedForUntrusted(t *testing.T) {
	s := Settings{Substituters: []string{"https://cache.example/"}, TrustedSubstituters: []string{"file:///srv/cache"}}
	for _, c := range []struct {
		name, value string
		restricted  bool
	}{
		{"sandbox", "true", true},
		{"download-attempts", "1", true},
		{"extra-sandbox-paths", "/bin/sh", true},
		{"sandbox-paths", "/bin/sh", true},
		{"require-sigs", "false", true},
		{"narinfo-cache-negative-ttl", "0", true},
		{"builders", "ssh://builder x86_64-linux", true},
		{"substituters", "https://elsewhere.example", true},
		{"substituters", "https://cache.example/ https://elsewhere.example", true},
		{"substituters", "", false},
		{"substituters", "https://cache.example", false},
		{"extra-substituters", "file:///srv/cache", false},
		{"builders", "", false},
		{"max-jobs", "1", false},
		{"keep-going", "true", false},
		{"cores", "1", false},
		{"timeout", "10", false},
		{"max-silent-time", "10", false},
		{"connect-timeout", "5", false},
		{"restrict-eval", "true", false},
		{"allowed-uris", "", false},
		{"nix-path", "", false},
		{"experimental-features", "", false},
		{"allow-import-from-derivation", "false", false},
	} {
		if got := s.RestrictedForUntrusted(c.name, c.value); got != c.restricted {
			t.Errorf("%s = %q: restricted %v, want %v", c.name, c.value, got, c.restricted)
		}
	}
}

// TestUntrustedRunnerPassesNoRestrictedSetting: through a daemon that
// does not trust the user, the arguments of the Nix commands hold none
// of the restricted settings the CLI asks for (the sandbox, --offline's
// download-attempts, a --nix-option's sandbox-paths, remote builders),
// and keep the others; a trusted user's, or one without a daemon, keep
// them all.
func TestUntrustedRunnerPassesNoRestrictedSetting(t *testing.T) {
	options := [][2]string{SandboxOption, {"substituters", ""}, {"download-attempts", "1"}, {"extra-sandbox-paths", "/bin/sh"}, {"connect-timeout", "5"}}
	buildArgs := []string{"--max-jobs", "0", "--builders", "ssh://b x86_64-linux", "--keep-going"}
	ctx := context.Background()
	untrusted := &Runner{Options: options, BuildArgs: buildArgs, settingsChecked: true, untrusted: &Settings{Sandbox: "true"}}
	args := strings.Join(append(untrusted.buildArgs(ctx), untrusted.optionArgs(ctx)...), " ")
	for _, bad := range []string{"sandbox", "download-attempts", "--builders", "ssh://"} {
		if strings.Contains(args, bad) {
			t.Errorf("untrusted: %q passed: %s", bad, args)
		}
	}
	for _, good := range []string{"--option substituters ", "--option connect-timeout 5", "--max-jobs 0", "--keep-going"} {
		if !strings.Contains(args, good) {
			t.Errorf("untrusted: %q left out: %s", good, args)
		}
	}
	trusted := &Runner{Options: options, BuildArgs: buildArgs, settingsChecked: true}
	if got := trusted.EffectiveOptions(ctx); !slices.Equal(got, options) {
		t.Errorf("trusted: options %v, want %v", got, options)
	}
	if got := trusted.buildArgs(ctx); !slices.Equal(got, buildArgs) {
		t.Errorf("trusted: build arguments %v, want %v", got, buildArgs)
	}
}

// TestLocalDaemonStore: --store daemon and unix://… are this machine's
// daemon, whose settings CheckSettings reads (and whose restricted
// settings an untrusted user must not pass); a remote store is not.
func TestLocalDaemonStore(t *testing.T) {
	for store, want := range map[string]bool{
		"daemon": true, "unix:///nix/var/nix/daemon-socket/socket": true,
		"ssh-ng://builder": false, "ssh://b": false, "": false, "auto": false,
	} {
		if got := localDaemonStore(store); got != want {
			t.Errorf("localDaemonStore(%q) = %v, want %v", store, got, want)
		}
		if got := (Settings{Store: store}).ThroughDaemon(Client{Root: true}, false); got != want {
			t.Errorf("ThroughDaemon with store %q as root, no socket: %v, want %v", store, got, want)
		}
	}
}
