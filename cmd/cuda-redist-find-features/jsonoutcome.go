package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// jsonMode is what a command's --json writes on stdout. The guarantee
// (docs/cli-guide.md): with --json, stdout is JSON whatever stops the
// run. A command that stops before its result (a usage error, no nix on
// PATH, a temporary directory that cannot be written, a signal) writes
// its error as JSON in the result's place (writeJSONError).
type jsonMode string

const (
	noJSON = jsonMode("")
	// jsonDocument: one JSON document (print-buildredist, coverage,
	// print-dependencies, print-vendored); {"error": {…}} when the run
	// stopped before it.
	jsonDocument = jsonMode("document")
	// jsonLines: JSON lines ending with a {"summary": {…}} object
	// (check-nixpkgs); {"summary": {"error": {…}}} when the run stopped
	// before its summary.
	jsonLines = jsonMode("lines")
)

// jsonErrorUsage ends the help of a one-document command's --json.
const jsonErrorUsage = `; a run that stops before it prints {"error": {message, exitCode, signal}} instead`

// jsonAnnotation is the cobra annotation that carries a command's
// jsonMode, so that run knows it even when the command line did not
// parse.
const jsonAnnotation = "crff-json"

// jsonError is the error object written in place of a JSON result.
type jsonError struct {
	Message  string `json:"message"`
	ExitCode int    `json:"exitCode"`
	// Signal is SIGINT or SIGTERM when one stopped the run.
	Signal string `json:"signal,omitempty"`
}

// jsonRequested is the JSON the command line asks for on stdout: the
// command's mode when --json is given and --out does not send the result
// elsewhere. The arguments are read too, for a command line that failed
// to parse before pflag reached --json.
func jsonRequested(cmd *cobra.Command, args []string) jsonMode {
	mode := jsonMode(cmd.Annotations[jsonAnnotation])
	f := cmd.Flags().Lookup("json")
	if mode == noJSON || f == nil {
		return noJSON
	}
	if out := cmd.Flags().Lookup("out"); out != nil && out.Value.String() != "" {
		return noJSON
	}
	if f.Changed {
		if f.Value.String() == "true" {
			return mode
		}
		return noJSON
	}
	if jsonInArgs(args) {
		return mode
	}
	return noJSON
}

// jsonInArgs says whether the arguments before "--" turn --json on.
func jsonInArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			if b, err := strconv.ParseBool(v); err == nil && b {
				return true
			}
		}
	}
	return false
}

// expectJSON is called as a command with --json starts: from then on a
// signal cancels the run's context instead of ending the program, so
// that the run ends with JSON (see writeJSONError).
func (e *env) expectJSON() { e.context() }

// jsonWritten marks the command's JSON result complete on stdout: its
// document, or its summary line.
func (e *env) jsonWritten() { e.jsonDone = true }

// interrupted is the signal that stopped the run, as an error, once one
// did (nil before, and for a command that catches no signal): a command
// that does not run Nix checks it before writing its result.
func (e *env) interrupted() error {
	if e.ctx == nil || e.ctx.Err() == nil {
		return nil
	}
	return context.Cause(e.ctx)
}

// writeJSONError writes the run's error in place of the JSON result the
// command did not write.
func (e *env) writeJSONError(mode jsonMode, je jsonError) {
	var v any = struct {
		Error jsonError `json:"error"`
	}{je}
	if mode == jsonLines {
		v = struct {
			Summary any `json:"summary"`
		}{v}
	}
	// Encoding a struct of strings and an int does not fail; a failed
	// write is the result stream's to report.
	_ = json.NewEncoder(e.stdout).Encode(v)
}
