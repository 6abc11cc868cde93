package nixdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/user"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// Through nix-daemon, the daemon takes a client's --option only from a
// trusted user (trusted-users in nix.conf, root alone by default): an
// untrusted user's `--option sandbox true` is dropped with a warning
// lost among the build logs, and the builds run as nix.conf says. Debian's
// nix-bin ships `sandbox = false`. So before building, the driver reads
// the effective settings and, when the sandbox the run asked for will
// not be there, says so once, with what to change in nix.conf.
//
// The settings are read with `nix show-config --json`: the one command
// every Nix from 2.8 to 2.34 has (`nix config show` appeared in 2.20; the
// newer versions print a deprecation warning for show-config, on stderr,
// which is kept only for an error). The client's --option values are left
// out on purpose, since the question is whether the daemon honours them.
//
// What it prints is the client's view: the system nix.conf
// ($NIX_CONF_DIR/nix.conf, /etc/nix by default), then the user's own
// (~/.config/nix/nix.conf, $XDG_CONFIG_DIRS, or $NIX_USER_CONF_FILES),
// then $NIX_CONFIG. The daemon applies none of the user's restricted
// settings from an untrusted client, so a user's `sandbox = true` (or
// `trusted-users = alice`) claims what the daemon does not do. The
// daemon's own settings are read the same way with the user's files and
// NIX_CONFIG left out (ReadDaemonSettings): what the daemon reads unless
// it was started with other settings (another NIX_CONF_DIR, --option on
// its command line), which no client can see.

// Settings are the Nix settings the driver depends on.
type Settings struct {
	// Sandbox is "true", "false" or "relaxed".
	Sandbox      string
	Substituters []string
	// TrustedSubstituters are those an untrusted client may ask for.
	TrustedSubstituters []string
	// SandboxPaths are sandbox-paths (extra-sandbox-paths adds to them).
	SandboxPaths []string
	TrustedUsers []string
	// Store is the store setting: "auto", "daemon", a URI.
	Store string
	// ClientSandbox is the client's own sandbox setting when Sandbox is
	// the daemon's (daemonView): a user's nix.conf may claim what the
	// daemon does not do.
	ClientSandbox string
}

// ReadSettings runs `nix show-config --json` (with no --option of the
// run's: see above): the client's view.
func ReadSettings(ctx context.Context) (Settings, error) {
	return readSettings(ctx, nil)
}

// ReadDaemonSettings runs `nix show-config --json` as the daemon reads
// its nix.conf: with NIX_USER_CONF_FILES empty (no user's nix.conf: Nix
// 2.8 to 2.34 read exactly the files it lists) and without NIX_CONFIG.
func ReadDaemonSettings(ctx context.Context) (Settings, error) {
	return readSettings(ctx, daemonEnv(os.Environ()))
}

// daemonEnv is env without what only the client reads: NIX_CONFIG, and
// NIX_USER_CONF_FILES set empty.
func daemonEnv(env []string) []string {
	out := []string{"NIX_USER_CONF_FILES="}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "NIX_CONFIG" && name != "NIX_USER_CONF_FILES" {
			out = append(out, kv)
		}
	}
	return out
}

// readSettings runs `nix show-config --json` in env (nil: the process's).
func readSettings(ctx context.Context, env []string) (Settings, error) {
	cmd := nixexec.Command("nix", append(append([]string{}, nixCommand...), "show-config", "--json")...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(ctx); err != nil {
		return Settings{}, fmt.Errorf("nix show-config --json: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return ParseSettings(stdout.Bytes())
}

// ParseSettings reads the JSON of `nix show-config --json`: an object of
// settings, each with its "value" (a string, a boolean, or a list of
// strings, by setting and by Nix version).
func ParseSettings(data []byte) (Settings, error) {
	var raw map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := jsoncheck.Unmarshal("nix show-config --json", data, &raw); err != nil {
		return Settings{}, err
	}
	var s Settings
	var err error
	field := func(name string, into func(json.RawMessage) error) {
		v, ok := raw[name]
		if err != nil || !ok || v.Value == nil {
			return
		}
		if e := into(v.Value); e != nil {
			err = fmt.Errorf("nix show-config --json: setting %s: %w", name, e)
		}
	}
	field("sandbox", func(v json.RawMessage) error { return scalar(v, &s.Sandbox) })
	field("store", func(v json.RawMessage) error { return scalar(v, &s.Store) })
	field("substituters", func(v json.RawMessage) error { return list(v, &s.Substituters) })
	field("sandbox-paths", func(v json.RawMessage) error { return list(v, &s.SandboxPaths) })
	field("trusted-substituters", func(v json.RawMessage) error { return list(v, &s.TrustedSubstituters) })
	field("trusted-users", func(v json.RawMessage) error { return list(v, &s.TrustedUsers) })
	if _, ok := raw["sandbox"]; !ok && err == nil {
		err = fmt.Errorf("nix show-config --json: no setting sandbox")
	}
	return s, err
}

// scalar reads a boolean or a string value as text.
func scalar(v json.RawMessage, into *string) error {
	var b bool
	if json.Unmarshal(v, &b) == nil {
		*into = fmt.Sprint(b)
		return nil
	}
	return json.Unmarshal(v, into)
}

// list reads a list of strings; a string of space-separated words (how a
// setting of paths or URIs is written in nix.conf); or, for sandbox-paths
// on Nix 2.34, an object of target: {source, optional}, read back into
// nix.conf's words (target=source, with ? when optional).
func list(v json.RawMessage, into *[]string) error {
	if json.Unmarshal(v, into) == nil {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		*into = strings.Fields(s)
		return nil
	}
	var paths map[string]struct {
		Source   string `json:"source"`
		Optional bool   `json:"optional"`
	}
	if err := json.Unmarshal(v, &paths); err != nil {
		return errors.New("neither a list, a string nor an object of paths")
	}
	*into = nil
	for _, target := range slices.Sorted(maps.Keys(paths)) {
		p := paths[target]
		word := target
		if p.Source != "" && p.Source != target {
			word += "=" + p.Source
		}
		if p.Optional {
			word += "?"
		}
		*into = append(*into, word)
	}
	return nil
}

// Client is who runs Nix: the user and group names trusted-users is
// matched against, and whether the process is root.
type Client struct {
	User   string
	Groups []string
	Root   bool
}

// CurrentClient is the process's user.
func CurrentClient() Client {
	c := Client{Root: os.Geteuid() == 0}
	u, err := user.Current()
	if err != nil {
		return c
	}
	c.User = u.Username
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if g, err := user.LookupGroupId(id); err == nil {
				c.Groups = append(c.Groups, g.Name)
			}
		}
	}
	return c
}

// ThroughDaemon says whether the builds go to a nix-daemon: the store
// setting says so, or is "auto" for a user who is not root while a daemon
// socket exists (Nix's own choice for "auto", as far as the client can
// tell: root opens the store directly).
func (s Settings) ThroughDaemon(c Client, socketExists bool) bool {
	switch {
	case localDaemonStore(s.Store):
		return true
	case s.Store == "auto" || s.Store == "":
		return !c.Root && socketExists
	}
	return false
}

// daemonView is s (the client's view) with the settings the daemon
// decides taken from d (the daemon's own nix.conf): the client keeps
// only its store setting.
func (s Settings) daemonView(d Settings) Settings {
	d.Store, d.ClientSandbox = s.Store, s.Sandbox
	return d
}

// Trusted says whether trusted-users names the client, one of its groups
// (@group) or everyone (*).
func (s Settings) Trusted(c Client) bool {
	for _, t := range s.TrustedUsers {
		switch {
		case t == "*", c.User != "" && t == c.User:
			return true
		case strings.HasPrefix(t, "@") && slices.Contains(c.Groups, t[1:]):
			return true
		}
	}
	return false
}

// SandboxWarning is what to tell the user when the builds will run
// without the sandbox that options ask for ("" when they will have it,
// or when options do not ask for it): options are ignored through a
// daemon by an untrusted client, so then nix.conf's value is the one.
func (s Settings) SandboxWarning(options [][2]string, c Client, throughDaemon bool) string {
	want := ""
	for _, o := range options {
		if o[0] == "sandbox" {
			want = o[1]
		}
	}
	if want != "true" {
		return ""
	}
	if !throughDaemon || s.Trusted(c) {
		return ""
	}
	if s.Sandbox == "true" {
		return ""
	}
	who := c.User
	if who == "" {
		who = "this user"
	}
	claim := ""
	if s.ClientSandbox != "" && s.ClientSandbox != s.Sandbox {
		claim = fmt.Sprintf(" (the sandbox = %s of this user's nix.conf or NIX_CONFIG is a client setting the daemon ignores)", s.ClientSandbox)
	}
	return fmt.Sprintf("the nix-daemon builds without the sandbox (sandbox = %s in nix.conf) and ignores --option sandbox true from %s, who is not in trusted-users (%s)%s: detections run unsandboxed; set `sandbox = true` in /etc/nix/nix.conf (NixOS: nix.settings.sandbox = true) and restart nix-daemon",
		s.Sandbox, who, strings.Join(s.TrustedUsers, " "), claim)
}

// daemonSocket is where nix-daemon listens (Nix's default state
// directory; NIX_DAEMON_SOCKET_PATH moves it).
func daemonSocket() string {
	if p := os.Getenv("NIX_DAEMON_SOCKET_PATH"); p != "" {
		return p
	}
	return "/nix/var/nix/daemon-socket/socket"
}

// localDaemonStore: store names this machine's nix-daemon.
func localDaemonStore(store string) bool {
	return store == "daemon" || strings.HasPrefix(store, "unix://")
}

// CheckSettings reads Nix's settings once per Runner, before the first
// Nix command that takes the run's options: it warns when the sandbox
// the run asked for will not be there, and, for a client the daemon does
// not trust, keeps the restricted settings out of every later command
// (untrusted.go), with a warning for those the user asked for
// (--nix-option, --builders). A remote store (--store ssh-ng://…) has
// its own settings, on another machine: nothing is read then; --store
// daemon or unix://… is this machine's daemon, whose settings are read. A failure to read
// them is a warning, not the run's failure; the options are passed as
// they are. log nil: r.Log, else slog's default.
func (r *Runner) CheckSettings(ctx context.Context, log *slog.Logger) {
	if r.settingsChecked || (r.Store != "" && !localDaemonStore(r.Store)) {
		return
	}
	r.settingsChecked = true
	if log == nil {
		log = r.logger()
	}
	c := CurrentClient()
	s, throughDaemon, ok := r.settingsInForce(ctx, log, c)
	if !ok {
		return
	}
	if w := s.SandboxWarning(r.Options, c, throughDaemon); w != "" {
		log.Warn(w)
	}
	if !throughDaemon || s.Trusted(c) {
		return
	}
	r.untrusted = &s
	r.warnUntrusted(s, log)
}

// settingsInForce are the settings the run's Nix commands get, and
// whether they go through the daemon: the client's, with the daemon's
// own when they do. ok is false, after a warning, when they could not be
// read.
func (r *Runner) settingsInForce(ctx context.Context, log *slog.Logger, c Client) (s Settings, throughDaemon, ok bool) {
	s, err := ReadSettings(ctx)
	if err != nil {
		log.Warn("could not read Nix's settings; the sandbox is not checked", "error", err)
		return s, false, false
	}
	if r.Store != "" {
		s.Store = r.Store // --store daemon or unix://: this machine's daemon
	}
	_, statErr := os.Stat(daemonSocket())
	if !s.ThroughDaemon(c, statErr == nil) {
		return s, false, true
	}
	// The store setting is the client's; the sandbox, trusted-users and
	// substituters are the daemon's own, whatever the user's nix.conf
	// claims (see ReadDaemonSettings).
	d, err := ReadDaemonSettings(ctx)
	if err != nil {
		log.Warn("could not read nix-daemon's settings; the sandbox is not checked", "error", err)
		return s, true, false
	}
	return s.daemonView(d), true, true
}

// warnUntrusted says which restricted settings, of those the user asked
// for (--nix-option, --builders), a daemon that does not trust the
// client ignores, and (at debug level) every one left out.
func (r *Runner) warnUntrusted(s Settings, log *slog.Logger) {
	_, dropped := s.ForUntrusted(r.Options)
	var asked []string
	for _, o := range dropped {
		if !ownOption(o) {
			asked = append(asked, o[0]+"="+o[1])
		}
	}
	if b := buildersArg(r.BuildArgs); b != "" && s.RestrictedForUntrusted("builders", b) {
		asked = append(asked, "builders="+b)
	}
	if len(asked) > 0 {
		log.Warn("nix-daemon ignores these settings from a user not in trusted-users, so they are not passed: set them in /etc/nix/nix.conf (NixOS: nix.settings), or add the user to trusted-users", "settings", strings.Join(asked, " "))
	}
	if len(dropped) > 0 {
		log.Debug("restricted settings left out (not a trusted user of nix-daemon)", "settings", fmt.Sprint(dropped))
	}
}

// ownOption says whether o is one the CLI adds itself (sandbox, and
// --offline's): the sandbox has its own warning, and a daemon that
// retries a failed download is no risk.
func ownOption(o [2]string) bool {
	return o == SandboxOption || slices.Contains(OfflineOptions, o)
}

// SandboxOption is the option of a run that builds in Nix's sandbox.
var SandboxOption = [2]string{"sandbox", "true"}

// buildersArg is --builders' value among args ("" for none).
func buildersArg(args []string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--builders" {
			return args[i+1]
		}
	}
	return ""
}

// EffectiveOptions are the options the run passes to Nix: r.Options,
// less the restricted settings when the daemon does not trust the client
// (CheckSettings runs first).
func (r *Runner) EffectiveOptions(ctx context.Context) [][2]string {
	r.CheckSettings(ctx, nil)
	if r.untrusted == nil {
		return r.Options
	}
	kept, _ := r.untrusted.ForUntrusted(r.Options)
	return kept
}

// buildArgs are r.BuildArgs, less --builders when the daemon does not
// take it from the client.
func (r *Runner) buildArgs(ctx context.Context) []string {
	r.CheckSettings(ctx, nil)
	b := buildersArg(r.BuildArgs)
	if r.untrusted == nil || b == "" || !r.untrusted.RestrictedForUntrusted("builders", b) {
		return r.BuildArgs
	}
	var args []string
	for i := 0; i < len(r.BuildArgs); i++ {
		if r.BuildArgs[i] == "--builders" && i+1 < len(r.BuildArgs) {
			i++
			continue
		}
		args = append(args, r.BuildArgs[i])
	}
	return args
}

func (r *Runner) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}
