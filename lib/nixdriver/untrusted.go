package nixdriver

import (
	"slices"
	"strings"
)

// Through nix-daemon, a client that is not in trusted-users may set only
// some settings; the daemon ignores the others ("restricted") and prints
// "warning: ignoring the client-specified setting 'NAME', because it is
// a restricted setting and you are not a trusted user" on every Nix
// command that opens the store (Nix 2.26 and 2.34 alike). So the driver
// does not pass a restricted setting at all to an untrusted client: the
// daemon would not apply it anyway, and what matters of it (the sandbox)
// is checked against the daemon's effective setting (SandboxWarning).
//
// Nix's own notion, from its daemon (and checked against Nix 2.26 and
// 2.34 through a daemon by scripts/test-daemon.sh):
//   - settings the client sends as fields of the protocol, not as
//     settings, which the daemon takes from anyone (protocolSettings);
//   - settings the daemon takes from anyone (openSettings): the build's
//     time bounds, the polling interval, connect-timeout; and builders
//     when empty;
//   - substituters (and extra-substituters) when each one is in the
//     daemon's substituters or trusted-substituters;
//   - settings the client itself uses and does not hand on, such as the
//     evaluation's (restrict-eval, allowed-uris, nix-path, ...): those
//     are not the daemon's business, and stay (clientSettings).
// Every other setting (sandbox, sandbox-paths, download-attempts,
// require-sigs, narinfo-cache-negative-ttl, builders when not empty, ...)
// is restricted.

// protocolSettings are sent as fields of the daemon protocol's
// set-options and applied for every client, or not sent at all
// (experimental features, plugin files: the client's own).
var protocolSettings = []string{
	"keep-failed", "keep-going", "fallback", "max-jobs", "cores",
	"substitute", "show-trace", "verbose-build",
	"experimental-features", "extra-experimental-features", "plugin-files",
}

// openSettings the daemon takes from an untrusted client.
var openSettings = []string{"timeout", "build-timeout", "max-silent-time", "build-max-silent-time", "poll-interval", "connect-timeout"}

// clientSettings are evaluation settings: the client evaluates, and Nix
// 2.26 and later do not hand them to the daemon.
var clientSettings = []string{
	"restrict-eval", "pure-eval", "allowed-uris", "extra-allowed-uris", "nix-path", "extra-nix-path",
	"allow-import-from-derivation", "allow-unsafe-native-code-during-evaluation",
	"eval-cache", "trace-function-calls", "max-call-depth", "eval-system",
}

// RestrictedForUntrusted says whether the daemon ignores the setting
// name = value from a client that is not in trusted-users: see above.
func (s Settings) RestrictedForUntrusted(name, value string) bool {
	switch {
	case slices.Contains(protocolSettings, name), slices.Contains(openSettings, name),
		slices.Contains(clientSettings, name):
		return false
	case name == "builders" || name == "extra-builders":
		return strings.TrimSpace(value) != ""
	case name == "substituters" || name == "extra-substituters":
		return !s.trustedSubstituters(strings.Fields(value))
	}
	return true
}

// trustedSubstituters says whether the daemon takes each of uris from
// an untrusted client: it is among the daemon's substituters or
// trusted-substituters (with or without its final slash, as Nix
// compares).
func (s Settings) trustedSubstituters(uris []string) bool {
	trusted := append(append([]string{}, s.Substituters...), s.TrustedSubstituters...)
	for _, u := range uris {
		if !slices.Contains(trusted, u) && !slices.Contains(trusted, u+"/") {
			return false
		}
	}
	return true
}

// ForUntrusted splits options into those an untrusted client may pass
// and those the daemon would ignore.
func (s Settings) ForUntrusted(options [][2]string) (kept, dropped [][2]string) {
	for _, o := range options {
		if s.RestrictedForUntrusted(o[0], o[1]) {
			dropped = append(dropped, o)
		} else {
			kept = append(kept, o)
		}
	}
	return kept, dropped
}
