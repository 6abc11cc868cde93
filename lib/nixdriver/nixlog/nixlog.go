package nixlog

import (
	"regexp"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/ansi"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// Activity and result types of Nix's logger (src/libutil/logging.hh).
const (
	ActFileTransfer = 101
	ActBuilds       = 104 // the count of the builds: done, expected, running, failed
	ActBuild        = 105
	ResBuildLogLine = 101 // a line a builder wrote
	ResProgress     = 105
)

// Event is one line of the structured log.
type Event struct {
	Action string `json:"action"` // start, stop, result, msg
	ID     uint64 `json:"id"`
	Parent uint64 `json:"parent"` // of a start: the activity this one belongs to (0: none)
	Level  int    `json:"level"`  // 0 error, 1 warn, 2 notice, 3 info, ...
	Type   int    `json:"type"`
	Text   string `json:"text"`
	Msg    string `json:"msg"`
	Fields []any  `json:"fields"`
}

// Parse reads one line; ok is false for a line that is not an event
// (Nix writes some text as is).
func Parse(line string) (ev Event, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "@nix ")
	if !found {
		return Event{}, false
	}
	if err := jsoncheck.Unmarshal("", []byte(rest), &ev); err != nil {
		return Event{}, false
	}
	return ev, true
}

// StringField is the i-th field as a string ("" when it is not one).
func (e Event) StringField(i int) string {
	if i < len(e.Fields) {
		if s, ok := e.Fields[i].(string); ok {
			return s
		}
	}
	return ""
}

// IntField is the i-th field as an integer (0 when it is not one).
func (e Event) IntField(i int) int64 {
	if i < len(e.Fields) {
		if f, ok := e.Fields[i].(float64); ok {
			return int64(f)
		}
	}
	return 0
}

// Notices of Nix's that it waits to retry something by itself, so that
// they report no failure: busyDatabase, another Nix process holds its
// store database ("warning: error: SQLite database
// '/nix/var/nix/db/db.sqlite' is busy" in Nix 2.8); retryingDownload, a
// download failed and is tried again ("warning: error: unable to
// download '…': Couldn't resolve host name (6); retrying in 291 ms" in
// Nix 2.8, "… (attempt 1/5)" in 2.34). A download that fails for good
// says so in its build's log.
var (
	busyDatabase     = regexp.MustCompile(`^warning: (error: )?SQLite database '[^']*' is busy$`)
	retryingDownload = regexp.MustCompile(`^warning: (error: )?unable to download '.*; retrying in \d+ ms( \(attempt \d+/\d+\))?$`)
)

// IsRetryNotice reports whether a line of Nix's (its plain stderr, or a
// message of its structured log, colours or not) only says that Nix is
// waiting to retry something by itself; --quiet and the progress leave
// such lines out, since they are neither errors nor results.
func IsRetryNotice(line string) bool {
	line = ansi.Strip(strings.TrimRight(line, "\r"))
	return busyDatabase.MatchString(line) || retryingDownload.MatchString(line)
}
