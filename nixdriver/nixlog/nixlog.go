package nixlog

import (
	"regexp"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// Activity and result types of Nix's logger (src/libutil/logging.hh).
const (
	ActFileTransfer = 101
	ActBuild        = 105
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

// busyDatabase is Nix's notice that another Nix process holds its store
// database: Nix waits and retries by itself, so the line reports no
// failure ("warning: error: SQLite database '/nix/var/nix/db/db.sqlite'
// is busy" in Nix 2.8).
var busyDatabase = regexp.MustCompile(`^warning: (error: )?SQLite database '[^']*' is busy$`)

// IsRetryNotice reports whether a line of Nix's plain stderr only says
// that Nix is waiting to retry something by itself; --quiet leaves such
// lines out, since they are neither errors nor results.
func IsRetryNotice(line string) bool {
	return busyDatabase.MatchString(strings.TrimRight(line, "\r"))
}
