package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/ansi"
	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// The command line is parsed by spf13/cobra with spf13/pflag: the Go
// ecosystem's common choice, with options before or after the arguments,
// --long and -s forms, grouped help, shell completions and a Markdown
// reference generated from the same definitions (see docs.go).

// Exit codes: 0 success, 1 failure, 2 usage error (check-nixpkgs adds 3:
// incomplete, see nixpkgscheck.ExitIncomplete); 128 + the signal's number
// when SIGINT or SIGTERM interrupted the run (see interrupted.go).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// errUsage marks errors that are the caller's words, not the input's.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// usageError is an errUsage whose message is only the explanation.
type usageError struct{ msg string }

func (u *usageError) Error() string        { return u.msg }
func (u *usageError) Is(target error) bool { return target == errUsage }

// command is one subcommand. Adding a command is one such value in
// commands(): its flags are declared by setup, which returns the function
// that runs it on the positional arguments.
type command struct {
	name    string
	args    string // synopsis of the positional arguments
	summary string
	group   string // one of the groups in commandGroups; "": see groupOf
	hidden  bool
	setup   func(fs *flag.FlagSet, env *env) func(args []string) error
	// values are the values shell completion offers for a flag.
	values map[string][]string
	// json is what the command's --json flag writes on stdout (see
	// jsonMode); noJSON for a command without one.
	json jsonMode
}

// env is what every command gets: where to write, and the logger.
type env struct {
	// stdout and stderr escape the control characters of what passes
	// (see safetext): names from the input never reach a terminal or a
	// commit message raw. terminal is stderr as it is, for the progress
	// line's own control sequences (their names escaped by the writer).
	stdout, stderr io.Writer
	terminal       io.Writer
	log            *slog.Logger
	logLevel       slog.Level
	// quiet: errors only (no progress, no Nix build lines).
	quiet bool
	// atExit run when the command returns (e.g. ending a status line).
	atExit []func()
	// buildFailure is, once a Nix build ran with the progress, the
	// failed build of a derivation by its .drv path (nil with --quiet).
	buildFailure func(drv string) (nixlog.Build, bool)
	// ctx and stopSignals: see context().
	ctx         context.Context
	stopSignals func()
	// jsonDone: the command's JSON result is complete on stdout (see
	// jsonWritten).
	jsonDone bool
}

func commands() []command {
	return []command{downloadCommand(), processCommand(), unpackCommand(), detectCommand(), compareCommand(), reportCommand(), releaseDiffCommand(), manifestSchemaCommand(), featureSchemaCommand(), printBuildRedistCommand(), checkNixpkgsCommand(), printDependenciesCommand(), printVendoredCommand(), coverageCommand(), docsCommand(), versionCommand()}
}

// Groups of the top-level help, in this order.
const (
	groupRelease = "release"
	groupArchive = "archive"
	groupSchema  = "schema"
	groupBuilder = "builder"
	groupOther   = "other"
)

var commandGroups = []*cobra.Group{
	{ID: groupRelease, Title: "Releases (manifests, features, Nixpkgs):"},
	{ID: groupArchive, Title: "One archive:"},
	{ID: groupSchema, Title: "Schemas:"},
	{ID: groupBuilder, Title: "Nix builders (run by the flake's checks):"},
	{ID: groupOther, Title: "Other:"},
}

const prog = "cuda-redist-find-features"

// rootLong is the top-level help, and the synopsis of docs/cli.md.
const rootLong = `Find the features of NVIDIA CUDA redistributable archives: Nix outputs, GPU architectures, sonames and NAR hashes, as feature JSON for Nixpkgs.

Exit codes: 0 success, 1 failure, 2 usage error (check-nixpkgs adds 3: incomplete), 130 or 143 when SIGINT or SIGTERM interrupted process-manifests, check-nixpkgs or download-manifests. The Nix commands the run started get SIGINT, Nix's own interruption (each runs in a process group of its own, so a terminal's Ctrl-C reaches them once, through the run, and each is killed if the run dies, even by kill -9), and stop their builds and remove their build directories; what still runs half a second later, or at a second signal, is killed. The run then removes its temporary files and GC roots (the next run removes those of a run that was killed), writes no further result and says it was interrupted; result files are replaced atomically, never half-written.

Names that come from the input (package names, versions, sonames, paths) reach the terminal with their control characters escaped as \uXXXX (ESC, CR, C1, DEL, bidirectional overrides and isolates; a byte that is not UTF-8 as \xNN): results on stdout (JSON included: it decodes to the same strings), messages and logs on stderr, and Nix's lines, whose colours stay. diff, whose text goes into commit messages, escapes newline and tab in names too. Files written with --out or beside the manifests are not escaped.`

// runError marks an error a command returned (as opposed to one of cobra's
// parsing errors, which are all usage errors).
type runError struct{ err error }

func (r *runError) Error() string { return r.err.Error() }
func (r *runError) Unwrap() error { return r.err }

// newRootCmd builds the command tree writing to e's streams.
func newRootCmd(e *env) *cobra.Command {
	var logLevelName string
	var verbose int
	root := &cobra.Command{
		Use:     prog,
		Short:   "Find the features of NVIDIA CUDA redistributable archives.",
		Long:    rootLong + "\n\n" + rootFlagsHelp,
		Version: buildVersion(),
		// Without a command: the help, as a usage error.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(e.stderr)
			_ = cmd.Help()
			return noCommand(cmd)
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetVersionTemplate(prog + " {{.Version}}\n")
	root.PersistentFlags().StringVar(&logLevelName, "log-level", "WARNING", "log level: DEBUG, INFO, WARNING, ERROR or CRITICAL")
	root.PersistentFlags().BoolVarP(&e.quiet, "quiet", "q", false, "show only errors: no progress, no Nix build lines (Nix's --quiet), log level ERROR unless --log-level is given")
	root.PersistentFlags().CountVarP(&verbose, "verbose", "v", "log level INFO (-vv: DEBUG)")
	_ = root.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions(
		[]string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}, cobra.ShellCompDirectiveNoFileComp))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	root.AddGroup(commandGroups...)
	root.SetHelpCommandGroupID(groupOther)
	root.SetCompletionCommandGroupID(groupOther)
	// Only on the top level: download-manifests --version V is a filter
	// (see versionBeforeCommand).
	root.Flags().Bool("version", false, "print the version and exit (alone; after a command's name, --version is its manifest version filter)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		lv, err := logLevel(cmd, e, logLevelName, verbose)
		if err != nil {
			return err
		}
		e.log, e.logLevel = newLogger(e.stderr, lv), lv
		return nil
	}
	for _, c := range commands() {
		root.AddCommand(c.cobra(e))
	}
	addCompletionCmd(root, e)
	return root
}

// cobra turns the command's table entry into a cobra command.
func (c command) cobra(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     strings.TrimSpace(c.name + " " + c.args),
		Short:   firstSentence(c.summary),
		Long:    c.summary,
		GroupID: c.group,
		Hidden:  c.hidden,
		// Each command checks its own arguments and says what it expected.
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{jsonAnnotation: string(c.json)},
	}
	if cmd.GroupID == "" {
		cmd.GroupID = groupOf(c.name)
	}
	runCmd := c.setup(cmd.Flags(), e)
	for name, values := range c.values {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if jsonRequested(cmd, nil) != noJSON {
			e.expectJSON()
		}
		defer func() {
			for _, f := range e.atExit {
				f()
			}
		}()
		if err := runCmd(args); err != nil {
			return &runError{err}
		}
		return nil
	}
	return cmd
}

// addCompletionCmd adds cobra's completion command now (Execute would
// add it later), so that the reference documents it and a shell it does
// not know is a usage error rather than its help.
func addCompletionCmd(root *cobra.Command, e *env) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				cmd.SetOut(e.stderr)
				_ = cmd.Help()
				return usageErrorf("completion takes one of bash, zsh, fish, powershell; %s", given(args))
			}
		}
	}
}

// groupOf places a command in the top-level help; new commands are
// release commands unless listed here.
func groupOf(name string) string {
	switch name {
	case "unpack", "detect":
		return groupArchive
	case "print-manifest-schema", "print-feature-schema":
		return groupSchema
	case "compare":
		return groupBuilder
	}
	return groupRelease
}

// firstSentence is the command list's one-line summary.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func run(args []string, stdout, stderr io.Writer) int {
	if !isTerminal(stderr) {
		// Nix's colours (its structured log's messages keep them).
		stderr = ansi.NewWriter(stderr)
	}
	results := newResultStream(stdout)
	safeOut, safeErr := safetext.NewWriter(results), safetext.NewWriter(stderr)
	defer safeErr.Flush()
	e := &env{stdout: safeOut, stderr: safeErr, terminal: stderr, log: newLogger(safeErr, slog.LevelInfo)}
	root := newRootCmd(e)
	root.SetArgs(args)
	cmd, err := root, versionBeforeCommand(root, args)
	if err == nil {
		cmd, err = root.ExecuteC()
	}
	e.stopContext()
	err = results.sayWriteFailureOnce(err)
	ran := cmd != nil && cmd != root
	name := prog
	if ran {
		name = cmd.CommandPath()
	}
	code, je := e.outcome(name, err, stderr)
	if ran && code != exitOK && !e.jsonDone {
		if mode := jsonRequested(cmd, args); mode != noJSON {
			e.writeJSONError(mode, je)
		}
	}
	return e.finishStdout(name, code, safeOut, results)
}

// finishStdout flushes the result and says on stderr if stdout failed
// to take it, which fails a run that had succeeded.
func (e *env) finishStdout(name string, code int, safeOut *safetext.Writer, results *resultStream) int {
	if err := safeOut.Flush(); err != nil && results.err == nil {
		results.err = err
	}
	ferr := results.failure()
	if ferr == nil {
		return code
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", name, ferr)
	if code == exitOK {
		return exitFail
	}
	return code
}

// outcome says on stderr why the command failed, if it did, and returns
// the exit code and the error as --json writes it.
func (e *env) outcome(name string, err error, stderr io.Writer) (int, jsonError) {
	if err == nil {
		return exitOK, jsonError{}
	}
	if code, ok := e.reportInterrupted(e.stderr, name); ok {
		ie, _ := interrupt.Cause(e.ctx)
		return code, jsonError{Message: ie.Error(), ExitCode: code, Signal: interrupt.SignalName(ie.Signal)}
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
	code := exitFail
	var re *runError
	if !errors.As(err, &re) || errors.Is(err, errUsage) {
		// cobra's own errors (unknown commands and flags, bad values) and
		// the commands' usage errors.
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		code = exitUsage
	} else if c, ok := exitCodeOf(err); ok {
		code = c
	}
	return code, jsonError{Message: err.Error(), ExitCode: code}
}

// newLogger is the logger of every command: log/slog's text format,
// which quotes a value holding a control character with strconv.Quote
// (TestLogEscapes).
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
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
	return 0, usageErrorf("unknown log level %q (DEBUG, INFO, WARNING, ERROR, CRITICAL)", s)
}

// wantArgs checks the number of positional arguments and names what was
// expected and what was given.
func wantArgs(cmd string, args []string, n int, what string) error {
	if len(args) == n {
		return nil
	}
	return usageErrorf("%s takes %s; %s", cmd, what, given(args))
}

// given describes the positional arguments a command received.
func given(args []string) string {
	switch len(args) {
	case 0:
		return "none given"
	case 1:
		return fmt.Sprintf("given one: %q", args[0])
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf("given %d: %s", len(args), strings.Join(q, " "))
}
