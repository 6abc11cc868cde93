package pkgeval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// The bounds of one nix-instantiate when the Evaluator sets none: far above
// what real package files take (the 75 files of Nixpkgs × 3 cases: 0.1 s
// and about 0.5 GiB of address space), low enough that a runaway file is
// stopped within minutes and without taking the machine's memory.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxMemory = 4 << 30
)

// restrictedOptions come after the user's --option values, so that they
// win. Restricted mode: no path outside the -I entries, no URI
// (allowed-uris is empty), no <...> but those entries (nix-path is empty,
// NIX_PATH is not passed). pure-eval stays off: nix-instantiate 2.8 drops
// the -I entries in pure mode, so it could not read the stand-in itself;
// what pure mode adds (no getEnv, currentTime, currentSystem, unlocked
// fetches) the stand-in's guarded builtins refuse.
var restrictedOptions = [][2]string{
	{"restrict-eval", "true"},
	{"pure-eval", "false"},
	{"allowed-uris", ""},
	{"nix-path", ""},
	{"allow-import-from-derivation", "false"},
	{"allow-unsafe-native-code-during-evaluation", "false"},
	// No experimental feature: flakes (getFlake reads what restricted
	// mode does not check) and fetchClosure stay off whatever the user's
	// nix.conf says; the stand-in refuses both as well.
	{"experimental-features", ""},
}

// keptEnv are the environment variables nix-instantiate gets: where the
// store and Nix's configuration are. Everything else (NIX_PATH, secrets)
// is left out; builtins.getEnv is refused anyway.
var keptEnv = []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_CACHE_HOME",
	"NIX_REMOTE", "NIX_STORE_DIR", "NIX_STATE_DIR", "NIX_LOG_DIR", "NIX_CONF_DIR", "NIX_USER_CONF_FILES", "NIX_DAEMON_SOCKET_PATH"}

func sandboxEnv() []string {
	var env []string
	for _, name := range keptEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// errNoBound: the shell could not set the memory bound; nothing is
// evaluated without it.
var errNoBound = nixexec.ErrNoMemoryBound

// boundError is an evaluation stopped by its time or memory bound.
func boundError(message string) *evalError { return &evalError{message: message, bound: true} }

// allowedPaths are the -I entries of a run: the paths given, each also
// with its symlinks resolved (restricted mode checks both).
func allowedPaths(paths ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		add(abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			add(real)
		}
	}
	return out
}

// maxErrorOutput bounds the error output kept of one nix-instantiate:
// a message and its trace, not a file's every trace line.
const maxErrorOutput = 1 << 20

// nixInstantiate runs one nix-instantiate with args, reading only
// allowed, within the evaluator's time and memory bounds, in a process
// group of its own that is killed as a whole when the time is up or ctx
// ends. A failed evaluation is an *evalError (bound set when a bound
// stopped it); an ended ctx is ctx's error.
func (e *Evaluator) nixInstantiate(ctx context.Context, dir string, allowed []string, args ...string) (stdout, stderr []byte, err error) {
	timeout, maxMemory := e.bounds()
	args = e.sandboxArgs(args, allowed)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := nixexec.Command("nix-instantiate", args...)
	cmd.Env = sandboxEnv()
	cmd.MaxMemory = maxMemory
	// nixexec: interrupted, nix-instantiate gets SIGINT, which it heeds;
	// the time bound reached, SIGKILL; should the check itself die, so
	// does nix-instantiate.
	out := &nixexec.LimitedBuffer{Max: nixexec.MaxOutput}
	errOut := &nixexec.LimitedBuffer{Max: maxErrorOutput}
	cmd.Stdout, cmd.Stderr = out, errOut
	e.runs.Add(1)
	err = cmd.Run(runCtx)
	var exit *nixexec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, nil, ctx.Err()
	case runCtx.Err() != nil:
		e.timedOut.Add(1)
		return nil, nil, boundError(fmt.Sprintf("error: evaluation stopped after %s, its time bound", timeout))
	case errors.Is(err, errNoBound):
		return nil, nil, errNoBound
	case err == nil && out.Dropped > 0:
		return nil, nil, &evalError{message: fmt.Sprintf("error: more than %d bytes of output", nixexec.MaxOutput)}
	case errors.As(err, &exit):
		return nil, nil, e.exitError(exit, errOut.String(), dir, maxMemory)
	case err != nil:
		return nil, nil, fmt.Errorf("nix-instantiate: %w", err)
	}
	return out.Bytes(), errOut.Bytes(), nil
}

// sandboxArgs adds to args the evaluator's options, the restricted
// ones, and the paths the evaluation may read.
func (e *Evaluator) sandboxArgs(args, allowed []string) []string {
	for _, o := range e.Options {
		args = append(args, "--option", o[0], o[1])
	}
	for _, o := range restrictedOptions {
		args = append(args, "--option", o[0], o[1])
	}
	for _, p := range allowed {
		// With a prefix: Nix reads "-I a=b" as prefix a, path b, so a
		// directory with "=" in its path would otherwise not be allowed.
		args = append(args, "-I", "crff-allowed="+p)
	}
	return args
}

// exitError is what a nix-instantiate that exited badly (stderr its
// error output) means: a bound that stopped it (a signal, or Nix out of
// memory), or the evaluation's own error.
func (e *Evaluator) exitError(exit *nixexec.ExitError, stderr, dir string, maxMemory int64) error {
	if e.onNixError != nil {
		e.onNixError(stderr)
	}
	msg := nixMessage(stderr, dir, e.Trace)
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if strings.Contains(stderr, "Failed to expand heap") {
			// Nix 2.34's garbage collector aborts when the bound
			// stops the heap's growth, after warnings of its own.
			return boundError(fmt.Sprintf("error: out of memory (memory bound %s): the heap could not grow, and nix-instantiate ended by %s", humanBytes(maxMemory), ws.Signal()))
		}
		return boundError(fmt.Sprintf("error: nix-instantiate ended by %s (memory bound %s): %s", ws.Signal(), humanBytes(maxMemory), msg))
	}
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "std::bad_alloc") {
		return boundError(fmt.Sprintf("%s (memory bound %s)", msg, humanBytes(maxMemory)))
	}
	return &evalError{message: msg, stderr: stderr}
}

func (e *Evaluator) bounds() (time.Duration, int64) {
	timeout, maxMemory := e.Timeout, e.MaxMemory
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxMemory <= 0 {
		maxMemory = DefaultMaxMemory
	}
	return timeout, maxMemory
}

// humanBytes writes n in the largest binary unit that divides it.
func humanBytes(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
