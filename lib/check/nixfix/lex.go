package nixfix

import (
	"fmt"
	"strings"
)

// kind is what a token is. The lexer knows just enough Nix to find
// brackets, strings and comments reliably: a string or comment is one
// token, so a "[" or ";" inside it is never taken for syntax.
type kind int

const (
	kIdent   kind = iota // identifiers and keywords (let, in, with, ...)
	kString              // "..." or ''...'' (interpolations inside)
	kNumber              // 12, 1.5
	kPath                // ./a, /a/b, ~/a, <nixpkgs>
	kURI                 // https://example.invalid/x
	kPunct               // { } [ ] ( ) ; : = , . ? @ ++ == ...
	kComment             // # ... and /* ... */
)

// token is one token of the source: its kind and byte range.
type token struct {
	kind       kind
	start, end int
	// text is the source text; for a string without interpolation,
	// value is its decoded value and plain is true.
	text  string
	value string
	plain bool
}

// maxDepth bounds the nesting of interpolations (strings inside ${}
// inside strings), so hostile input cannot grow the stack.
const maxDepth = 200

// lexer turns Nix source into tokens.
type lexer struct {
	src  string
	pos  int
	toks []token
}

// tokenize returns the tokens of src, comments included, or an error
// naming the byte offset where the source stops being Nix it knows.
func tokenize(src string) ([]token, error) {
	lx := &lexer{src: src}
	if err := lx.run(0, 0); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '\'' || c == '-'
}

func isPathChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == '+'
}

func isURIChar(c byte) bool {
	return isPathChar(c) || strings.IndexByte("%/?:@&=$,!~*'", c) >= 0
}

// puncts are the multi-character operators, longest first.
var puncts = []string{"...", "${", "++", "//", "==", "!=", "<=", ">=", "&&", "||", "->"}

func (lx *lexer) emit(k kind, start int) {
	lx.toks = append(lx.toks, token{kind: k, start: start, end: lx.pos, text: lx.src[start:lx.pos]})
}

// run lexes until the end of the source, or, inside an interpolation
// (depth > 0), until the "}" that closes it.
func (lx *lexer) run(depth, braces int) error {
	if depth > maxDepth {
		return fmt.Errorf("offset %d: interpolations nested deeper than %d", lx.pos, maxDepth)
	}
	for lx.pos < len(lx.src) {
		done, err := lx.next(depth, &braces)
		if err != nil || done {
			return err
		}
	}
	if depth > 0 {
		return fmt.Errorf("offset %d: unterminated interpolation", lx.pos)
	}
	return nil
}

// next lexes the token that starts here, or skips a white-space
// character; done is true at the "}" closing the interpolation being
// lexed.
func (lx *lexer) next(depth int, braces *int) (done bool, err error) {
	c := lx.src[lx.pos]
	start := lx.pos
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		lx.pos++
	case c == '#' || strings.HasPrefix(lx.src[lx.pos:], "/*"):
		return false, lx.comment()
	case c == '"':
		return false, lx.doubleQuoted(depth)
	case strings.HasPrefix(lx.src[lx.pos:], "''"):
		return false, lx.indented(depth)
	case lx.path():
		lx.emit(kPath, start)
	case isIdentStart(c):
		lx.identOrURI()
	case c >= '0' && c <= '9':
		lx.number()
	default:
		return lx.punct(depth, braces)
	}
	return false, nil
}

// comment lexes a # line comment or a /* */ block comment.
func (lx *lexer) comment() error {
	start := lx.pos
	if lx.src[lx.pos] == '#' {
		for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
			lx.pos++
		}
		lx.emit(kComment, start)
		return nil
	}
	end := strings.Index(lx.src[lx.pos+2:], "*/")
	if end < 0 {
		return fmt.Errorf("offset %d: unterminated comment", start)
	}
	lx.pos += 2 + end + 2
	lx.emit(kComment, start)
	return nil
}

// punct lexes an operator; done is true at the "}" closing the
// interpolation being lexed.
func (lx *lexer) punct(depth int, braces *int) (done bool, err error) {
	start := lx.pos
	for _, p := range puncts {
		if strings.HasPrefix(lx.src[lx.pos:], p) {
			lx.pos += len(p)
			lx.emit(kPunct, start)
			if p == "${" {
				*braces++
			}
			return false, nil
		}
	}
	c := lx.src[lx.pos]
	if strings.IndexByte("{}[]();:=,.?@!<>+-*/", c) < 0 {
		return false, fmt.Errorf("offset %d: unexpected character %q", start, c)
	}
	lx.pos++
	switch c {
	case '{':
		*braces++
	case '}':
		if *braces == 0 && depth > 0 {
			lx.emit(kPunct, start)
			return true, nil
		}
		*braces--
	}
	lx.emit(kPunct, start)
	return false, nil
}

// identOrURI lexes an identifier, or a URI (scheme:rest, as Nix does).
func (lx *lexer) identOrURI() {
	start := lx.pos
	for lx.pos < len(lx.src) && isIdentChar(lx.src[lx.pos]) {
		lx.pos++
	}
	if lx.pos+1 < len(lx.src) && lx.src[lx.pos] == ':' && isURIChar(lx.src[lx.pos+1]) && !strings.ContainsAny(lx.src[start:lx.pos], "'") {
		lx.pos++
		for lx.pos < len(lx.src) && isURIChar(lx.src[lx.pos]) {
			lx.pos++
		}
		lx.emit(kURI, start)
		return
	}
	lx.emit(kIdent, start)
}

func (lx *lexer) number() {
	start := lx.pos
	for lx.pos < len(lx.src) && (lx.src[lx.pos] >= '0' && lx.src[lx.pos] <= '9' || lx.src[lx.pos] == '.' || lx.src[lx.pos] == 'e' || lx.src[lx.pos] == 'E') {
		lx.pos++
	}
	lx.emit(kNumber, start)
}

// path lexes a path literal if one starts here: a/b, ./a, ../a, /a,
// ~/a, or <a/b>.
func (lx *lexer) path() bool {
	s := lx.src[lx.pos:]
	if strings.HasPrefix(s, "~/") {
		lx.pos += 1 + pathRest(s[1:])
		return true
	}
	if s[0] == '<' {
		return lx.searchPath(s)
	}
	i := 0
	for i < len(s) && isPathChar(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '/' && i+1 < len(s) && isPathChar(s[i+1]) && !strings.HasPrefix(s[i:], "//") {
		lx.pos += i + pathRest(s[i:])
		return true
	}
	return false
}

// searchPath lexes <a/b> if s, starting with "<", is one.
func (lx *lexer) searchPath(s string) bool {
	i := 1
	for i < len(s) && (isPathChar(s[i]) || s[i] == '/') {
		i++
	}
	if i > 1 && i < len(s) && s[i] == '>' {
		lx.pos += i + 1
		return true
	}
	return false
}

// pathRest is the length of the "/seg/seg" part of a path.
func pathRest(s string) int {
	i := 0
	for i+1 < len(s) && s[i] == '/' && isPathChar(s[i+1]) {
		i++
		for i < len(s) && isPathChar(s[i]) {
			i++
		}
	}
	return i
}

// doubleQuoted lexes "...", with \ escapes and ${} interpolations.
func (lx *lexer) doubleQuoted(depth int) error {
	start := lx.pos
	lx.pos++
	var value strings.Builder
	plain := true
	for {
		if lx.pos >= len(lx.src) {
			return fmt.Errorf("offset %d: unterminated string", start)
		}
		c := lx.src[lx.pos]
		switch {
		case c == '"':
			lx.pos++
			lx.toks = append(lx.toks, token{kind: kString, start: start, end: lx.pos, text: lx.src[start:lx.pos], value: value.String(), plain: plain})
			return nil
		case c == '\\':
			if lx.pos+1 >= len(lx.src) {
				return fmt.Errorf("offset %d: unterminated string", start)
			}
			value.WriteByte(unescape(lx.src[lx.pos+1]))
			lx.pos += 2
		case strings.HasPrefix(lx.src[lx.pos:], "${"):
			plain = false
			if err := lx.interpolation(depth); err != nil {
				return err
			}
		default:
			value.WriteByte(c)
			lx.pos++
		}
	}
}

// unescape is the byte a backslash escape stands for.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

// indented lexes an indented string (between two pairs of single quotes)
// with its escapes (a quote pair before $, ' or \x) and ${}
// interpolations.
func (lx *lexer) indented(depth int) error {
	start := lx.pos
	lx.pos += 2
	for {
		if lx.pos >= len(lx.src) {
			return fmt.Errorf("offset %d: unterminated indented string", start)
		}
		s := lx.src[lx.pos:]
		switch {
		case strings.HasPrefix(s, "'''"), strings.HasPrefix(s, "''$"):
			lx.pos += 3
		case strings.HasPrefix(s, "''\\"):
			lx.pos += 3
			if lx.pos < len(lx.src) {
				lx.pos++
			}
		case strings.HasPrefix(s, "''"):
			lx.pos += 2
			lx.toks = append(lx.toks, token{kind: kString, start: start, end: lx.pos, text: lx.src[start:lx.pos]})
			return nil
		case strings.HasPrefix(s, "${"):
			if err := lx.interpolation(depth); err != nil {
				return err
			}
		default:
			lx.pos++
		}
	}
}

// interpolation skips a ${...} inside a string: its tokens are lexed (a
// "}" inside a string there does not close it) and then dropped, as the
// string is one token.
func (lx *lexer) interpolation(depth int) error {
	lx.pos += 2
	mark := len(lx.toks)
	if err := lx.run(depth+1, 0); err != nil {
		return err
	}
	lx.toks = lx.toks[:mark]
	return nil
}
