package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
)

// rootFlagsHelp ends the top-level help: where results go, what the
// flags shared by all commands mean. docs/cli.md shows it too.
const rootFlagsHelp = `Results: process-manifests writes feature_<version>.json beside each manifest and keeps the manifest's aggregate directory (feature file, index.json, detail.json, buildRedist.json) as aggregate_<version>, a GC-rooted link to the Nix store, beside it (or in --out); it prints both on stdout. report, print-buildredist, print-dependencies, coverage and diff read that directory (or an aggregate directory). A run that changes nothing leaves every file and link as it was.

--version: alone or before the command (` + "`" + prog + ` --version` + "`" + `, or the version command) it prints the program's version. After a command's name it is that command's manifest version filter, as in the Python tool (` + "`" + `process-manifests --version 12.8.1 URL DIR` + "`" + `). Before a command it would be either, so ` + "`" + prog + ` --version process-manifests ...` + "`" + ` is refused.

-v, --verbose: log at INFO (-vv: DEBUG); -q, --quiet: errors only; --log-level names a level. -v with -q or --log-level is refused.

--offline (process-manifests, check-nixpkgs): Nix asks no binary cache and does not retry downloads, so a machine without a network gets no retry messages. Nix's colours are taken out of stderr when it is not a terminal.`

// versionBeforeCommand refuses --version between the program's name and
// a command's: the root's flag prints the version, the command's filters
// manifests, and which one was meant cannot be told (cobra would give it
// to the command, taking the next argument as its value). --version=V
// there is a misplaced filter. Flags that take a value are skipped with
// it, so `--log-level DEBUG process-manifests` finds the command.
func versionBeforeCommand(root *cobra.Command, args []string) error {
	seen := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case a == "--version" || strings.HasPrefix(a, "--version="):
			seen = a
		case !strings.HasPrefix(a, "-") || a == "-":
			return misplacedVersion(seen, a)
		case takesValue(root, a):
			i++
		}
	}
	if strings.HasPrefix(seen, "--version=") {
		return misplacedVersion(seen, "")
	}
	return nil
}

// misplacedVersion is the error for --version seen before the command.
func misplacedVersion(seen, command string) error {
	if seen == "" {
		return nil
	}
	if command == "" {
		command = "COMMAND"
	}
	return usageErrorf("%s before the command is ambiguous: `%s --version` alone (or `%s version`) prints the program's version; "+
		"a command's manifest version filter goes after its name: `%s %s --version VERSION ...`", seen, prog, prog, prog, command)
}

// takesValue says whether the root flag a (--name, or -x and -xy
// shorthand groups) takes the next argument as its value.
func takesValue(root *cobra.Command, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	var f *flag.Flag
	if name, ok := strings.CutPrefix(a, "--"); ok {
		f = root.Flags().Lookup(name)
		if f == nil {
			f = root.PersistentFlags().Lookup(name)
		}
	} else if len(a) >= 2 {
		// In a group only the last flag can take a value, the next argument.
		f = root.Flags().ShorthandLookup(a[len(a)-1:])
		if f == nil {
			f = root.PersistentFlags().ShorthandLookup(a[len(a)-1:])
		}
	}
	return f != nil && f.NoOptDefVal == ""
}

// logLevel is the level the flags ask for: --log-level, or -v (INFO), -vv
// (DEBUG), -q (ERROR); WARNING without any. Two of them contradict.
func logLevel(cmd *cobra.Command, e *env, name string, verbose int) (slog.Level, error) {
	given := 0
	for _, f := range []string{"log-level", "verbose", "quiet"} {
		if cmd.Flags().Changed(f) {
			given++
		}
	}
	switch {
	case given > 1 && verbose > 0:
		return 0, usageErrorf("-v/--verbose, -q/--quiet and --log-level each set the log level: give one")
	case verbose == 1:
		return slog.LevelInfo, nil
	case verbose > 1:
		return slog.LevelDebug, nil
	case e.quiet && !cmd.Flags().Changed("log-level"):
		return slog.LevelError, nil
	}
	return parseLevel(name)
}

// versionCommand prints the version, as --version alone does.
func versionCommand() command {
	return command{
		name:    "version",
		summary: "Print the program's version (as `" + prog + " --version` does).",
		group:   groupOther,
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			return func(args []string) error {
				if err := wantArgs("version", args, 0, "no arguments"); err != nil {
					return err
				}
				_, err := fmt.Fprintf(e.stdout, "%s %s\n", prog, buildVersion())
				return err
			}
		},
	}
}

// noCommand is the error of a run without a command; after -v, which
// some programs read as --version, it says how to ask for the version.
func noCommand(root *cobra.Command) error {
	if root.Flags().Changed("verbose") {
		return usageErrorf("no command given (-v is --verbose; the program's version: --version, or the version command)")
	}
	return usageErrorf("no command given")
}
