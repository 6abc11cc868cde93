package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
)

// summaryNames is how many names of a group of failures the summary
// shows; the rest are counted.
const summaryNames = 3

// Plural nouns of a stage's builds, for the summary.
var stageNouns = map[nixlog.Stage][2]string{
	nixlog.Fetch: {"fetch", "fetches"}, nixlog.Unpack: {"unpack", "unpacks"}, nixlog.Detect: {"detection", "detections"},
	nixlog.Aggregate: {"aggregate", "aggregates"}, nixlog.Other: {"build", "builds"},
}

func stageNoun(s nixlog.Stage, n int) string {
	if n == 1 {
		return stageNouns[s][0]
	}
	return stageNouns[s][1]
}

// failureGroup is the failures of one stage with one cause.
type failureGroup struct {
	stage    nixlog.Stage
	cause    string
	subjects []string
}

// failureSummary is the end of a run that had failures: per stage and
// cause, "692 fetches failed: could not resolve host (…)" and a line of
// a few of their names ("…and 689 more"); then the derivations not built
// because one they need failed, by stage. Most frequent first.
func failureSummary(failures []nixlog.Build, dependency map[nixlog.Stage]int) []string {
	byKey := map[string]*failureGroup{}
	var groups []*failureGroup
	for _, b := range failures {
		cause := causeClass(b.Cause, b.Subject)
		key := fmt.Sprint(b.Stage, "\x00", cause)
		g, ok := byKey[key]
		if !ok {
			g = &failureGroup{stage: b.Stage, cause: cause}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.subjects = append(g.subjects, b.Subject)
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].subjects) > len(groups[j].subjects) })
	var lines []string
	for _, g := range groups {
		lines = append(lines, fmt.Sprintf("%d %s failed: %s", len(g.subjects), stageNoun(g.stage, len(g.subjects)), g.cause),
			"  "+someNames(g.subjects))
	}
	for s := nixlog.Fetch; s <= nixlog.Other; s++ {
		if n := dependency[s]; n > 0 {
			what := "something they need failed"
			if n == 1 {
				what = "something it needs failed"
			}
			lines = append(lines, fmt.Sprintf("%d %s not built: %s", n, stageNoun(s, n), what))
		}
	}
	return lines
}

// someNames is the first few names and how many more there are.
func someNames(names []string) string {
	if len(names) <= summaryNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s …and %d more", strings.Join(names[:summaryNames], ", "), len(names)-summaryNames)
}

// Causes that read alike whichever archive they hit (curl's errors, as
// Nix 2.8 and 2.34 word them), and what they likely mean.
var knownCauses = []struct {
	re   *regexp.Regexp
	says string
}{
	{regexp.MustCompile(`(?i)could( no|n')t resolve host`), "could not resolve host (offline? try --offline with local archives)"},
	{regexp.MustCompile(`(?i)could( no|n')t connect to server`), "could not connect to the server"},
	{regexp.MustCompile(`(?i)unsupported protocol`), "unsupported URL scheme"},
	{regexp.MustCompile(`(?i)hash mismatch`), "hash mismatch: the archive is not the one the manifest's sha256 names"},
}

// noCause stands for the cause of a builder that wrote nothing.
const noCause = "its builder wrote no error"

// quoted is a quoted name in a cause: a URL, a path; storePath a store
// path, which names its archive.
var (
	quoted    = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	storePath = regexp.MustCompile(`/nix/store/[0-9a-z]{32}-[^\s:'"]*`)
)

// causeClass is what failures are grouped by: a known cause's words, else
// the cause with what names the archive (words that start with its name,
// store paths, quoted URLs and paths) left out.
func causeClass(cause, subject string) string {
	if cause == "" {
		return noCause
	}
	for _, k := range knownCauses {
		if k.re.MatchString(cause) {
			return k.says
		}
	}
	cause = storePath.ReplaceAllString(quoted.ReplaceAllString(cause, "…"), "…")
	if subject != "" {
		// A word that starts with the name (the archive's file name).
		named := regexp.MustCompile(`(^|[\s/])` + regexp.QuoteMeta(subject) + `[^\s:]*`)
		cause = named.ReplaceAllString(cause, "${1}…")
	}
	return cause
}
