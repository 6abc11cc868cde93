package buildercli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	flag "github.com/spf13/pflag"
)

// ErrUsage marks a misuse of the command line (exit status 2, with the
// usage).
var ErrUsage = errors.New("usage")

// Env is what a command writes to: its results to Stdout, messages to
// Stderr, its log (to Stderr) to Log.
type Env struct {
	Stdout, Stderr io.Writer
	Log            *slog.Logger
}

// Command is one command of a program: Run gets the arguments after its
// name.
type Command struct {
	Name string
	Run  func(args []string, e Env) error
}

// Program is a builder program: its name (for messages), its usage (the
// text for no arguments, --help and misuses) and its commands.
type Program struct {
	Name, Usage string
	Commands    []Command
}

// Run is main without the process: it runs the command args name and
// returns the exit status.
func (p Program) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, p.Usage)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, p.Usage)
		return 0
	}
	e := Env{stdout, stderr, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	for _, c := range p.Commands {
		if c.Name == args[0] {
			return p.exitCode(c.Run(args[1:], e), stderr)
		}
	}
	return p.exitCode(fmt.Errorf("%w: unknown command %q (%s)", ErrUsage, args[0], p.names()), stderr)
}

func (p Program) names() string {
	names := make([]string, len(p.Commands))
	for i, c := range p.Commands {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// exitCode reports err on stderr and picks the exit status: 0 for none
// (or help), 2 for a misuse, 1 for any other failure.
func (p Program) exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "%s: %v\n%s", p.Name, err, p.Usage)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
	return 1
}

// Flags is the flag set of the command name: its help and errors go to
// stderr, and flags may follow arguments.
func Flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true)
	return fs
}

// Parse parses args with fs and returns the arguments left, which must be
// want of them (what names them, for the message); want < 0 takes any
// number. A parse error is a misuse; help is returned as it is.
func Parse(fs *flag.FlagSet, args []string, want int, what string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, fs.Name(), err)
	}
	if want >= 0 && fs.NArg() != want {
		return nil, fmt.Errorf("%w: %s takes %s, got %d arguments", ErrUsage, fs.Name(), what, fs.NArg())
	}
	return fs.Args(), nil
}

// Usagef is a misuse: format and args say what.
func Usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}
