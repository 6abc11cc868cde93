package jsoncheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsonpos"
)

// MaxDepth bounds how deeply arrays and objects nest. The deepest real
// files nest 10 arrays and objects (an index.json; a detail.json 9, a
// merged index 9, a manifest 4: TestRealFilesFarFromTheLimit measures
// them); 64 is far from every one and far below what costs a decoder
// anything.
const MaxDepth = 64

// The kinds of refusal, for errors.Is.
var (
	ErrSyntax    = errors.New("not valid JSON")
	ErrDepth     = errors.New("nested too deeply")
	ErrDuplicate = errors.New("duplicate key")
)

// Error says what was refused and where.
type Error struct {
	// Kind is ErrSyntax, ErrDepth or ErrDuplicate.
	Kind error
	// Path holds the object keys that lead to the place (array elements
	// add none, so the path of a deep array stays short).
	Path []string
	// Offset is the byte of the input the scan had reached.
	Offset int64
	// Detail says more: the repeated key, the limit, the syntax error.
	Detail string
}

func (e *Error) Error() string {
	if e.Kind == ErrSyntax { // the offset says where; the path may not be one yet
		return e.Message()
	}
	where := "top level"
	if len(e.Path) > 0 {
		where = "at " + strings.Join(quoteAll(e.Path[:min(len(e.Path), shownKeys)]), ".")
		if more := len(e.Path) - shownKeys; more > 0 {
			where += fmt.Sprintf(" and %d keys deeper", more)
		}
	}
	return where + ": " + e.Message()
}

// shownKeys is how much of a path an error shows: enough to find the
// place, short however deep the refused nesting is.
const shownKeys = 4

// Message is the error without the path: for callers that name the place
// in their own terms (the manifest names packages and platforms).
func (e *Error) Message() string {
	sep := ": "
	if e.Kind == ErrDuplicate {
		sep = " "
	}
	return fmt.Sprintf("%s%s%s (byte %d)", e.Kind, sep, e.Detail, e.Offset)
}

func (e *Error) Unwrap() error { return e.Kind }

func quoteAll(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if len(k) > 64 {
			k = k[:64] + "..."
		}
		out[i] = fmt.Sprintf("%q", k)
	}
	return out
}

// frame is one open array or object.
type frame struct {
	object  bool
	wantKey bool   // an object's next token is a key or its end
	key     string // the object's current key
	// keys seen in an object: a list while it is short, then a set.
	few  []string
	many map[string]struct{}
}

// see records key and reports whether the object had it already, keys
// that differ only in case counting as the same: encoding/json matches
// struct fields case-insensitively, so of "narHash" and "NarHash" the
// last would silently win.
func (f *frame) see(key string) bool {
	key = foldKey(key)
	if f.many != nil {
		if _, ok := f.many[key]; ok {
			return true
		}
		f.many[key] = struct{}{}
		return false
	}
	for _, k := range f.few {
		if k == key {
			return true
		}
	}
	f.few = append(f.few, key)
	if len(f.few) > 16 {
		f.many = make(map[string]struct{}, 2*len(f.few))
		for _, k := range f.few {
			f.many[k] = struct{}{}
		}
		f.few = nil
	}
	return false
}

// Check refuses data unless it is exactly one JSON value, nested at most
// MaxDepth deep, in which no object repeats a key. A repeated key is
// refused because decoders disagree on it (Go's encoding/json and Nix's
// builtins.fromJSON keep the last, gjson the first), so one file would
// read as two different documents.
func Check(data []byte) error {
	return CheckDepth(data, MaxDepth)
}

// CheckDepth is Check with another depth limit.
func CheckDepth(data []byte, maxDepth int) error {
	return scan(bytes.NewReader(data), maxDepth)
}

func scan(r io.Reader, maxDepth int) error {
	s := &scanner{dec: json.NewDecoder(r), maxDepth: maxDepth}
	s.dec.UseNumber()
	for {
		tok, err := s.dec.Token()
		switch {
		case errors.Is(err, io.EOF):
			return s.end()
		case err != nil:
			return s.fail(ErrSyntax, "%v", err)
		case s.done:
			return s.fail(ErrSyntax, "data after the top-level value")
		}
		if n := len(s.stack); n > 0 && s.stack[n-1].object && s.stack[n-1].wantKey {
			err = s.key(tok)
		} else {
			err = s.value(tok)
		}
		if err != nil {
			return err
		}
	}
}

// scanner is scan's state: the arrays and objects open around the token,
// and whether the top-level value is complete.
type scanner struct {
	dec      *json.Decoder
	maxDepth int
	stack    []frame
	done     bool
}

// fail is an Error at the decoder's offset, with the keys of the objects
// open around it.
func (s *scanner) fail(kind error, format string, args ...any) error {
	var path []string
	for _, f := range s.stack {
		if f.object && !f.wantKey {
			path = append(path, f.key)
		}
	}
	return &Error{Kind: kind, Path: path, Offset: s.dec.InputOffset(), Detail: fmt.Sprintf(format, args...)}
}

// valueDone ends a value: the top level's, or the one of the innermost
// object's key (its next token is a key again).
func (s *scanner) valueDone() {
	if len(s.stack) == 0 {
		s.done = true
	} else if top := &s.stack[len(s.stack)-1]; top.object {
		top.wantKey = true
	}
}

// end is the input's end: after one complete value, and nothing open.
func (s *scanner) end() error {
	switch {
	case len(s.stack) > 0:
		// A truncated file: say so rather than "no value".
		return s.fail(ErrSyntax, "the input ends with arrays or objects still open (%d)", len(s.stack))
	case !s.done:
		return s.fail(ErrSyntax, "no JSON value")
	}
	return nil
}

// key takes a token where an object wants a key: the object's end, or a
// key seen only once in it.
func (s *scanner) key(tok json.Token) error {
	top := &s.stack[len(s.stack)-1]
	if tok == json.Delim('}') {
		s.stack = s.stack[:len(s.stack)-1]
		s.valueDone()
		return nil
	}
	key, _ := tok.(string)
	if top.see(key) {
		return s.fail(ErrDuplicate, "%q", key)
	}
	top.key, top.wantKey = key, false
	return nil
}

// value takes a token where a value goes: an array or object opens
// (within the depth limit), an array closes, or a scalar ends the value.
func (s *scanner) value(tok json.Token) error {
	switch tok {
	case json.Delim('{'), json.Delim('['):
		if len(s.stack) >= s.maxDepth {
			return s.fail(ErrDepth, "more than %d arrays and objects inside each other", s.maxDepth)
		}
		obj := tok == json.Delim('{')
		s.stack = append(s.stack, frame{object: obj, wantKey: obj})
	case json.Delim(']'):
		s.stack = s.stack[:len(s.stack)-1]
		s.valueDone()
	default:
		s.valueDone()
	}
	return nil
}

// Unmarshal checks data and then decodes it into v with encoding/json.
// Errors name source and, where they say, the line and column (see
// Place).
func Unmarshal(source string, data []byte, v any) error {
	if err := Check(data); err != nil {
		return Place(source, data, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return Place(source, data, err)
	}
	return nil
}

// Place names source, and the line and column in data where err is (an
// *Error of Check, or encoding/json's syntax and type errors):
// "source:3:14: ...". An error that says no place gets "source: ...";
// without a source, err is returned as it is.
func Place(source string, data []byte, err error) error {
	var e *Error
	switch {
	case err == nil || source == "":
		return err
	case errors.As(err, &e):
		return jsonpos.WrapAt(source, data, e.Offset, err)
	}
	return jsonpos.Wrap(source, data, err)
}

// foldKey maps key to one spelling per case-folding class (each rune to
// the ASCII lower-case letter of its simple-folding orbit, else the
// orbit's smallest rune: the equivalence strings.EqualFold and
// encoding/json use).
func foldKey(key string) string {
	ascii := true
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return key
	}
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if 'a' <= f && f <= 'z' {
				// An ASCII lower-case letter stands for its class, as it
				// does in the all-ASCII case above (k, K and the Kelvin sign).
				return f
			}
			least = min(least, f)
		}
		if 'a' <= r && r <= 'z' {
			return r
		}
		return least
	}, key)
}
