package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// check places encoding/json's verdict on data, as jsoncheck does.
func check(path string, data []byte) error {
	var raw json.RawMessage
	return Wrap(path, data, json.Unmarshal(data, &raw))
}

// TestUnmarshalNamesLineAndColumn: each broken document's error names the
// file and the line and column of the byte at fault, as an editor counts
// them (characters, not bytes, after a multi-byte one).
func TestUnmarshalNamesLineAndColumn(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want string
	}{
		{"{\"a\":\n  {\"b\": 1,,}}", "f.json:2:11: not valid JSON: invalid character ',' looking for beginning of object key string"},
		{`{"a": 1`, "f.json:1:8: not valid JSON: unexpected end of JSON input"},
		{"{}\n{}", "f.json:2:1: not valid JSON: invalid character '{' after top-level value"},
		{"{\"é\": x}", "f.json:1:7: not valid JSON: invalid character 'x' looking for beginning of value"},
		{"", "f.json:1:1: not valid JSON: unexpected end of JSON input"},
		{"[1,\n2,\n\"s\"]", "f.json:3:3: cannot unmarshal string into Go value of type int"},
	} {
		var v []int
		var obj map[string]any
		target := any(&obj)
		if strings.HasPrefix(c.doc, "[") {
			target = &v
		}
		err := Wrap("f.json", []byte(c.doc), json.Unmarshal([]byte(c.doc), target))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: not an *Error", c.doc)
		}
	}
}

// TestWrapOnce: an error already placed is not placed again (no
// "f.json:1:2: f.json:1:2: ..."); an error without an offset names the
// file only; nil stays nil.
func TestWrapOnce(t *testing.T) {
	data := []byte(`{"a" 1}`)
	err := check("f.json", data)
	again := Wrap("f.json", data, err)
	if again.Error() != err.Error() || strings.Count(again.Error(), "f.json") != 1 {
		t.Errorf("wrapped twice: %v", again)
	}
	if got := Wrap("f.json", data, errors.New("other")).Error(); got != "f.json: other" {
		t.Errorf("no offset: %q", got)
	}
	if Wrap("f.json", data, nil) != nil || check("f.json", []byte(`{"ok": [1, 2]}`)) != nil {
		t.Error("valid input gave an error")
	}
}

// TestPositionEdges: offsets outside the data are clamped, a newline ends
// its line.
func TestPositionEdges(t *testing.T) {
	data := []byte("ab\ncd\n")
	for _, c := range []struct {
		off       int64
		line, col int
	}{{-5, 1, 1}, {0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {6, 3, 1}, {99, 3, 1}} {
		if l, col := Position(data, c.off); l != c.line || col != c.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}

// FuzzPosition: whatever the bytes, the position is within the text, and
// for a syntax error it matches counting lines by hand.
func FuzzPosition(f *testing.F) {
	f.Add([]byte("{\"a\":\n  {\"b\": 1,,}}"))
	f.Add([]byte("[\"\xff\",\n 1 2]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := check("f", data)
		if err == nil {
			return
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error without a place: %v", data, err)
		}
		lines := strings.Split(string(data), "\n")
		if pe.Line < 1 || pe.Line > len(lines) {
			t.Fatalf("%q: line %d of %d", data, pe.Line, len(lines))
		}
		if pe.Col < 1 || pe.Col > utf8.RuneCountInString(lines[pe.Line-1])+1 {
			t.Fatalf("%q: column %d of line %q", data, pe.Col, lines[pe.Line-1])
		}
		var syn *json.SyntaxError
		if !errors.As(err, &syn) {
			t.Fatalf("%q: %T", data, pe.Err)
		}
	})
}
