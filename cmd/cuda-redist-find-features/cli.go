package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
)

// version is set at link time (-ldflags "-X main.version=...").
var version = "dev"

// Exit codes: 0 success, 1 failure, 2 usage error (check-nixpkgs adds 3:
// incomplete, see exitIncomplete).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// errUsage marks errors that are the caller's words, not the input's.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis of the positional arguments
	summary string
	// setup declares flags and returns the function that runs the command.
	setup func(fs *flag.FlagSet, env *env) func(args []string) error
}

// env is what every command gets: where to write, and the logger.
type env struct {
	stdout, stderr io.Writer
	log            *slog.Logger
}

func commands() []command {
	return []command{downloadCommand(), processCommand(), unpackCommand(), detectCommand(), aggregateCommand(), mergeIndexCommand(), compareCommand(), reportCommand(), releaseDiffCommand(), manifestSchemaCommand(), featureSchemaCommand(), printBuildRedistCommand(), checkNixpkgsCommand(), printDependenciesCommand()}
}

const prog = "cuda-redist-find-features"

func run(args []string, stdout, stderr io.Writer) int {
	top := flag.NewFlagSet(prog, flag.ContinueOnError)
	top.SetOutput(stderr)
	logLevel := top.String("log-level", "WARNING", "log level: DEBUG, INFO, WARNING, ERROR or CRITICAL")
	showVersion := top.Bool("version", false, "print the version and exit")
	top.Usage = func() {} // printed below, to stdout for --help

	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			topUsage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", prog)
		return exitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, prog, version)
		return exitOK
	}
	rest := top.Args()
	if len(rest) == 0 {
		topUsage(stderr)
		return exitUsage
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == rest[0] {
			c := c
			cmd = &c
		}
	}
	if cmd == nil {
		if rest[0] == "help" {
			topUsage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "%s: unknown command %q (see --help)\n", prog, rest[0])
		return exitUsage
	}
	fs := flag.NewFlagSet(prog+" "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sub := fs.String("log-level", "", "log level (overrides the global one)")
	e := &env{stdout: stdout, stderr: stderr}
	runCmd := cmd.setup(fs, e)
	fs.Usage = func() {}
	if err := fs.Parse(rest[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, cmd, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "Run '%s %s --help' for usage.\n", prog, cmd.name)
		return exitUsage
	}
	level := *logLevel
	if *sub != "" {
		level = *sub
	}
	lv, err := parseLevel(level)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return exitUsage
	}
	e.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	if err := runCmd(fs.Args()); err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", prog, cmd.name, err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		if code, ok := exitCodeOf(err); ok {
			return code
		}
		return exitFail
	}
	return exitOK
}

// parseLevel accepts upstream's level names (Python logging's).
func parseLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(s) {
	case "DEBUG":
		return slog.LevelDebug, nil
	case "INFO":
		return slog.LevelInfo, nil
	case "WARNING", "WARN":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	case "CRITICAL":
		return slog.LevelError + 4, nil
	}
	return 0, fmt.Errorf("%w: unknown log level %q (DEBUG, INFO, WARNING, ERROR, CRITICAL)", errUsage, s)
}

func topUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s [--log-level LEVEL] [--version] COMMAND [ARGS]...\n\n", prog)
	fmt.Fprintf(w, "Find the features of NVIDIA CUDA redistributable archives.\n\nCommands:\n")
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND --help' for a command's options.\n", prog)
}

func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s %s [OPTIONS] %s\n\n%s\n\nOptions:\n", prog, c.name, c.args, c.summary)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
