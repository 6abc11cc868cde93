package features

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// File names are bytes; JSON strings are Unicode, and encoding/json turns
// every invalid UTF-8 sequence into U+FFFD, so two different names could
// collapse into one key. Paths in the detect output are therefore escaped,
// reversibly:
//
//   - each byte of an invalid UTF-8 sequence is written \xNN (two
//     lowercase hex digits);
//   - each backslash is written \\;
//   - everything else (valid UTF-8) is kept as it is.
//
// A valid name without a backslash (every name NVIDIA ships) is unchanged.
// Escaping commutes with joining by "/", so paths and symlink targets can
// be escaped component by component or whole. The NAR hash is computed on
// the raw bytes.

// NameEscaping documents the escaping, for the JSON schema.
const NameEscaping = `File names are bytes: a name that is not valid UTF-8 is written with each byte of an invalid sequence as \xNN (two lowercase hex digits), ` +
	`and every backslash as \\; valid UTF-8 is kept as it is. The escaping is reversible; the NAR hash covers the raw bytes.`

// EscapeName returns the escaped form of the raw file name or path s.
func EscapeName(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}

// UnescapeName reverses EscapeName.
func UnescapeName(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(s) && s[i+1] == 'x':
			var v byte
			if _, err := fmt.Sscanf(s[i+2:i+4], "%02x", &v); err != nil {
				return "", fmt.Errorf("bad escape %q at byte %d", s[i:i+4], i)
			}
			b.WriteByte(v)
			i += 3
		default:
			return "", fmt.Errorf("bad escape at byte %d of %q", i, s)
		}
	}
	return b.String(), nil
}
