package nixpkgscheck

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// Exit codes of a check: ExitOK when no error is found, ExitErrors when a
// build would fail (or a file does not evaluate), ExitIncomplete when no
// error is found but some archives could not be checked.
const (
	ExitOK         = 0
	ExitErrors     = 1
	ExitIncomplete = 3
)

// rank orders the report: the package files' own findings first (they
// explain archive findings that follow), then the archives', then the
// archives that could not be checked.
func rank(f Finding) int {
	switch {
	case f.Package == "":
		return 0 // a file's own: evalError, droppedOutput, manifestRefused, ...
	case f.Level == LevelFailure:
		return 2
	}
	return 1
}

// Sort puts findings in the report's order: by rank, then file-level ones
// by file, archive ones by package, platform, variant and version. It is
// stable: the findings of one archive keep the order they were found in.
func Sort(findings []Finding) {
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		ka := []string{a.File, a.Package, a.Platform, a.Variant, a.Version}
		kb := []string{b.File, b.Package, b.Platform, b.Variant, b.Version}
		if rank(a) != 0 {
			ka, kb = ka[1:], kb[1:]
		}
		for x := range ka {
			if ka[x] != kb[x] {
				return ka[x] < kb[x]
			}
		}
		return false
	})
}

// Counts are how many findings of each level a report has; Refused are
// the failures that are whole manifests.
type Counts struct {
	Errors, Warnings, Hints, Failures, Refused int
	// NotChecked are the package files no manifest of their redist was
	// given for (the notChecked warnings' counts).
	NotChecked int
	// NotWritten are the files --fix could not write (among the Errors).
	NotWritten int
}

// Count counts the findings by level.
func Count(findings []Finding) Counts {
	var n Counts
	for _, f := range findings {
		switch f.Level {
		case LevelError:
			n.Errors++
			// A rename's aliases file or old file left as it was (its
			// new file was not written) is a file not written too.
			if f.Kind == KindNotWritten || f.Kind == KindRenameNotMoved {
				n.NotWritten++
			}
		case LevelWarning:
			n.Warnings++
			if f.Kind == KindNotChecked {
				n.NotChecked += f.Count
			}
		case LevelHint:
			n.Hints++
		case LevelFailure:
			if f.Kind == "manifestRefused" {
				n.Refused++
			} else {
				n.Failures++
			}
		}
	}
	return n
}

// Outcome is the exit code of a report with these counts and, unless it
// is ExitOK, why. Errors win over failures: a check that found an error
// is not merely incomplete. Warnings and hints never fail.
func (n Counts) Outcome() (int, error) {
	switch {
	case n.NotWritten > 0:
		// Said first: the fix the diff shows is not in the files.
		msg := fmt.Sprintf("--fix could not write %d file(s) (the ERROR lines say which and why): each is left as it was, without the diff's changes", n.NotWritten)
		if other := n.Errors - n.NotWritten; other > 0 {
			msg += fmt.Sprintf("; %d other error(s): the Nixpkgs builds of these packages would fail", other)
		}
		return ExitErrors, errors.New(msg)
	case n.Errors > 0:
		return ExitErrors, fmt.Errorf("%d error(s): the Nixpkgs builds of these packages would fail", n.Errors)
	case n.Refused > 0 && n.Failures > 0:
		return ExitIncomplete, fmt.Errorf("%d manifest(s) could not be read and %d archive(s) could not be fetched or detected: the check is incomplete", n.Refused, n.Failures)
	case n.Refused > 0:
		return ExitIncomplete, fmt.Errorf("%d manifest(s) could not be read: the check is incomplete", n.Refused)
	case n.Failures > 0:
		return ExitIncomplete, fmt.Errorf("%d archive(s) could not be fetched or detected: the check is incomplete", n.Failures)
	}
	return ExitOK, nil
}

// Text is the one-line form of a finding: a control character of a
// name or message (a newline in a package key, say) is escaped
// (safetext.Escape), so a finding is always one line of its own. A
// package file's evaluation error with -v's trace ("\n  … while
// evaluating ...", pkgeval's Trace) is the exception: each
// trace line follows on a line of its own, indented, escaped alike.
func (f Finding) Text() string {
	if f.Package != "" || f.File == "" {
		return safetext.Escape(f.text())
	}
	msg, trace := f.Message, ""
	if i := strings.Index(msg, "\n  … "); i >= 0 {
		msg, trace = msg[:i], msg[i+1:]
	}
	g := f
	g.Message = msg
	out := safetext.Escape(g.text())
	if trace != "" {
		for _, l := range strings.Split(trace, "\n") {
			out += "\n  " + safetext.Escape(strings.TrimPrefix(l, "  "))
		}
	}
	return out
}

func (f Finding) text() string {
	lvl := map[string]string{LevelError: "ERROR", LevelWarning: "WARN ", LevelHint: "HINT ", LevelFailure: "FAILED"}[f.Level]
	if f.Package == "" && f.File == "" {
		return lvl + " " + f.Message
	}
	if f.Package == "" {
		return fmt.Sprintf("%s %s: %s", lvl, f.File, f.Message)
	}
	line := fmt.Sprintf("%s %s %s %s %s: ", lvl, f.Package, f.Platform, f.Variant, f.Version)
	switch f.Kind {
	case "fetchFailure":
		return line + f.Message
	case KindCapabilityNotCovered:
		return line + f.Path + ": " + f.Message
	case KindVendoredLibrary: // about one library of the archive, not its outputs
		return line + f.Path + ": " + f.Message + " [" + f.File + "]"
	case KindRenamed, KindDropped, KindSplit, KindLicence, KindRenameNotMoved: // about the package file, in one release
		return fmt.Sprintf("%s %s %s: %s [%s]", lvl, f.Package, f.Version, f.Message, f.File)
	}
	if strings.HasSuffix(f.Kind, "Dependency") || f.Kind == KindUnreachableLoad {
		return line + f.Message + " [" + f.File + "]"
	}
	line += fmt.Sprintf("declared [%s] needed [%s]: %s", strings.Join(f.Declared, " "), strings.Join(f.Needed, " "), f.Message)
	if f.Path != "" {
		line += " (" + f.Path + ")"
	}
	return line
}

// KindNotRead is a file of the packages directory that was not read
// (pkgeval.Unread): not a regular file, or too large.
const KindNotRead = "notRead"

// UnreadFindings turns the files the listing left unread into one
// warning each, naming the file and why: every file of the packages
// directory is accounted for.
func UnreadFindings(unread []pkgeval.Unread) []Finding {
	var out []Finding
	for _, u := range unread {
		out = append(out, Finding{Level: LevelWarning, Kind: KindNotRead, File: u.File, Message: u.Why + ", not checked"})
	}
	return out
}
