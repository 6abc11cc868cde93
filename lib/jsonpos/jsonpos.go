package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Error is a JSON decoding error at a place in a file.
type Error struct {
	Path string
	// Line and Col are 1-based; Col counts characters (UTF-8 runes), not
	// bytes, as an editor shows it.
	Line, Col int
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, message(e.Err))
}

// invalid says the document is not JSON at all (rather than JSON of
// another shape), which the bare syntax message leaves to guess.
func invalid(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (e *Error) Unwrap() error { return e.Err }

// message is err's text without encoding/json's "json: " prefix, which
// says nothing once the file is named.
func message(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if invalid(err) {
		return "not valid JSON: " + msg
	}
	return msg
}

// Position is the line and column (1-based, the column in characters) of
// the byte at off in data; an off at or past the end is the place just
// after the last byte (where a truncated document ends).
func Position(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

// offsetOf is the offset of the byte an encoding/json error is about,
// when it says one. encoding/json reports how many bytes it had read:
// the offending byte is the last of them, except at the end of the input.
func offsetOf(err error, size int) (int64, bool) {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		if syn.Offset >= int64(size) || syn.Offset == 0 {
			return syn.Offset, true
		}
		return syn.Offset - 1, true
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		// Offset is just after the value of the wrong type: name its end.
		if typ.Offset > 0 && typ.Offset <= int64(size) {
			return typ.Offset - 1, true
		}
		return typ.Offset, true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return int64(size), true
	}
	return 0, false
}

// Wrap names path and, when err says where in data it is, the line and
// column: an *Error. An error that carries no place is returned as
// "path: err"; nil stays nil.
func Wrap(path string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	off, ok := offsetOf(err, len(data))
	if !ok {
		return fmt.Errorf("%s: %w", path, err)
	}
	line, col := Position(data, off)
	return &Error{Path: path, Line: line, Col: col, Err: err}
}

// WrapAt is Wrap for an error found at a known offset of data (a
// duplicate key, say), which the error itself does not carry.
func WrapAt(path string, data []byte, off int64, err error) error {
	line, col := Position(data, off)
	return &Error{Path: path, Line: line, Col: col, Err: err}
}
