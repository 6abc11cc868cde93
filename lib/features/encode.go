package features

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Encode returns v as canonical JSON: object keys sorted, two-space indent,
// non-ASCII escaped as \uXXXX, and a trailing newline, exactly as Python's
// json.dumps(v, indent=2, sort_keys=True) + "\n" writes it.
func Encode(v any) ([]byte, error) {
	// A round trip through generic values sorts the keys of structs too.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return asciiEscape(buf.Bytes()), nil
}

// asciiEscape rewrites non-ASCII runes (only ever inside strings in JSON
// output) as \uXXXX escapes, with surrogate pairs above the BMP.
func asciiEscape(b []byte) []byte {
	if isASCII(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r < utf8.RuneSelf:
			out = append(out, b[0])
		case r > 0xFFFF:
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
