package nixstring

import "strings"

// Quote returns s as a double-quoted Nix string that evaluates to s.
// Nix's escapes in such a string are \" \\ \n \r \t and \${ (a "${"
// left raw starts an interpolation); every other byte may stand as it
// is, UTF-8 or not. A NUL byte cannot be in a Nix string at all (Nix
// keeps strings as C strings): Quote writes it as it is, and Nix's
// parser refuses it; callers pass names, which hold none.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '$':
			if i+1 < len(s) && s[i+1] == '{' {
				b.WriteString(`\$`)
			} else {
				b.WriteByte('$')
			}
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// List returns items as a Nix list of strings on one line: [ "a" "b" ].
func List(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = Quote(s)
	}
	return "[ " + strings.Join(q, " ") + " ]"
}
