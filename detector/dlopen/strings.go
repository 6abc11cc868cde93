package dlopen

import (
	"bytes"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

var dotSo = []byte(".so")

// isText reports whether b can be part of a C string NVIDIA writes:
// printable ASCII, tab and newlines. A NUL ends a string; any other byte
// is binary data (a constant, a table) next to the strings.
func isText(b byte) bool { return b >= 0x20 && b < 0x7f || b == '\t' || b == '\n' || b == '\r' }

// isNameChar reports whether b can be part of a library name or of a
// printf-style template of one (the '%' and the conversions' letters).
func isNameChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '_' || b == '-' || b == '+' || b == '.' || b == '%'
}

// scanStrings finds every ".so" in a data section outside its fatbin
// containers (sieve.go) and classifies the name around each; base is
// the section's file offset.
func (c *collector) scanStrings(section string, body []byte, base uint64) {
	r := c.readerFor(section, body, base)
	s := sieve{sections: []span{{int(base), int(base) + len(body)}}, emit: r.at}
	s.feed(int(base), body)
}

// runReader reads, for each ".so" of a data section, in order, the run of
// text that holds it. Each run is looked at once (a ".so" inside a run
// read before is passed over) and at most MaxScanString bytes of it on
// either side of its first ".so", so the cost is linear in the section
// whatever it holds.
type runReader struct {
	c       *collector
	section string
	body    []byte
	base    int
	// pos: a ".so" before it is in a run read already; bytes before
	// done belong to runs already read.
	pos, done int
}

func (c *collector) readerFor(section string, body []byte, base uint64) *runReader {
	return &runReader{c: c, section: section, body: body, base: int(base)}
}

// at reads the run holding the ".so" at file offset off.
func (r *runReader) at(off int) {
	i := off - r.base
	if i < r.pos {
		return
	}
	body := r.body
	lo := max(r.done, i-MaxScanString)
	start := i
	for start > lo && isText(body[start-1]) {
		start--
	}
	hi := min(len(body), i+MaxScanString)
	end := i
	for end < hi && isText(body[end]) {
		end++
	}
	r.c.looked += end - start
	r.c.scanRun(r.section, body, uint64(r.base), start, end)
	r.done, r.pos = end, end
}

// run is one run of text bytes and what surrounds it.
type run struct {
	text []byte
	// afterNUL: the run starts the section or follows a NUL, as a C
	// string does; afterBinary: it follows a byte that is neither text
	// nor NUL (a constant just before the string); neither: it follows
	// more text than was looked at.
	afterNUL, afterBinary bool
	// terminated: a NUL follows the run.
	terminated bool
	offset     uint64
}

func (c *collector) scanRun(section string, body []byte, base uint64, start, end int) {
	r := run{
		text:       body[start:end],
		afterNUL:   start == 0 || body[start-1] == 0,
		terminated: end < len(body) && body[end] == 0,
		offset:     base + uint64(start),
	}
	r.afterBinary = !r.afterNUL && !isText(body[start-1])
	for j := 0; j < len(r.text); {
		k := bytes.Index(r.text[j:], dotSo)
		if k < 0 {
			return
		}
		k += j
		ts := k
		for ts > j && isNameChar(r.text[ts-1]) {
			ts--
		}
		te, ok := nameEnd(r.text, k+len(dotSo))
		j = max(te, k+len(dotSo))
		if !ok {
			continue
		}
		c.classify(section, r, ts, te)
	}
}

// nameEnd returns where a name whose ".so" ends at p ends: after any
// ".N" version components (digits or a conversion), or after a last "."
// to which a version is appended at run time. ok is false when a name
// character follows (".so.13.10.sym", ".sox": not a library name).
func nameEnd(s []byte, p int) (int, bool) {
	for p < len(s) && s[p] == '.' {
		q := p + 1
		switch {
		case q < len(s) && s[q] >= '0' && s[q] <= '9':
			for q < len(s) && s[q] >= '0' && s[q] <= '9' {
				q++
			}
		case q < len(s) && s[q] == '%':
			n := conversion(s[q:])
			if n == 0 {
				return q, false
			}
			q += n
		case q == len(s) || !isNameChar(s[q]):
			return q, true // "libnvrtc.so.": the prefix of a versioned name
		default:
			return q, false
		}
		p = q
	}
	return p, p == len(s) || !isNameChar(s[p])
}

// conversion returns the length of the printf conversion at the start of
// s ("%d", "%s", "%02u", "%.3lu"), or 0.
func conversion(s []byte) int {
	if len(s) < 2 || s[0] != '%' {
		return 0
	}
	i := 1 + spanOf(s[1:], "-+ #0") // flags
	i += spanDigits(s[i:])          // width
	if i < len(s) && s[i] == '.' {
		i++
		i += spanDigits(s[i:]) // precision
	}
	i += spanOf(s[i:], "hlzjt") // length
	if i < len(s) && strings.IndexByte("diuxXs", s[i]) >= 0 {
		return i + 1
	}
	return 0
}

// spanOf is the length of s's prefix of bytes in set.
func spanOf(s []byte, set string) int {
	i := 0
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// spanDigits is the length of s's prefix of decimal digits.
func spanDigits(s []byte) int { return spanOf(s, "0123456789") }

// nameShape checks a candidate name (stem ".so" version): ok is false
// for what cannot be a file name (an empty stem, a leading '.' or '-', a
// '%' that is no conversion); templated when it holds a conversion or
// ends in '.' (a version appended at run time).
func nameShape(name []byte) (templated, ok bool) {
	stem := name[:bytes.Index(name, dotSo)]
	if len(stem) == 0 || stem[0] == '.' || stem[0] == '-' {
		return false, false
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '%' {
			n := conversion(name[i:])
			if n == 0 {
				return false, false
			}
			templated = true
			i += n - 1
		}
	}
	return templated || name[len(name)-1] == '.', true
}

// globOf is the shell glob of the names a template or prefix expands to:
// each conversion, and a last '.', followed by '*'.
func globOf(name []byte) string {
	var g strings.Builder
	for i := 0; i < len(name); {
		if name[i] != '%' {
			g.WriteByte(name[i])
			i++
			continue
		}
		if !strings.HasSuffix(g.String(), "*") {
			g.WriteByte('*')
		}
		i += conversion(name[i:])
	}
	if name[len(name)-1] == '.' {
		g.WriteByte('*')
	}
	return g.String()
}

// classify records the name r.text[ts:te] with the evidence its place
// gives (docs/runtime-dependencies.md, "Evidence"):
//
//   - the whole C string (a NUL before and after): a soname, template or
//     prefix, High;
//   - the last component of a path (text before it ends in '/', holds no
//     blank or ';', and the string is whole): Medium, a load by path;
//   - a lib* name ending a string that starts right after binary data,
//     with at most 7 bytes of non-name text between: Medium (a string
//     placed right after a constant, with no NUL between);
//   - anything else (a name inside a sentence, followed by text, in a run
//     longer than was looked at): a mention, Low, kept for the
//     maintainer but not a load by itself. Only lib* names count here.
func (c *collector) classify(section string, r run, ts, te int) {
	name := r.text[ts:te]
	templated, ok := nameShape(name)
	if !ok {
		return
	}
	kind := kindByPlace(r, ts, te, name, templated)
	if kind == "" {
		return
	}
	if kind == KindMention && name[len(name)-1] == '.' {
		// In a sentence a last '.' is its full stop ("skipping
		// libgdrapi.so.2."), not a version to come.
		name = name[:len(name)-1]
		templated, _ = nameShape(name)
	}
	c.add(name, kindConfidence[kind], func() (string, features.LoadEvidence) {
		glob := ""
		if templated {
			glob = globOf(name)
		}
		return glob, features.LoadEvidence{Kind: kind, Section: section, Offset: r.offset, String: keep(r.text)}
	})
}

// kindByPlace is the kind of evidence the name r.text[ts:te] gives by
// its place in the run, as classify lists them; "" for a name that is
// not lib* in a place that is none of a load.
func kindByPlace(r run, ts, te int, name []byte, templated bool) string {
	prefix := r.text[:ts]
	whole := te == len(r.text) && r.terminated
	lib := bytes.HasPrefix(name, []byte("lib"))
	switch {
	case whole && len(prefix) == 0 && r.afterNUL:
		return wholeStringKind(name, templated)
	case whole && isPathBefore(prefix) && (r.afterNUL || r.afterBinary):
		return KindPath
	case whole && lib && r.afterBinary && isShortGap(prefix):
		return KindNearBinary
	case !lib:
		return ""
	}
	return KindMention
}

// wholeStringKind is the kind of a name that is a whole C string: a
// prefix (ending in '.'), a template, or a soname.
func wholeStringKind(name []byte, templated bool) string {
	switch {
	case name[len(name)-1] == '.':
		return KindPrefix
	case templated:
		return KindTemplate
	}
	return KindSoname
}

// isPathBefore says whether the text before a name makes the name a
// path's last component: it ends in '/' and holds no blank or ';'.
func isPathBefore(prefix []byte) bool {
	return bytes.HasSuffix(prefix, []byte("/")) && !bytes.ContainsAny(prefix, " \t\n\r;")
}

// isShortGap says whether the text between binary data and a name is
// at most 7 bytes of non-name text, without blanks.
func isShortGap(prefix []byte) bool {
	return len(prefix) < 8 && !bytes.ContainsAny(prefix, " \t\n\r") && !bytes.ContainsFunc(prefix, isNameRune)
}

func isNameRune(r rune) bool { return r < 0x80 && isNameChar(byte(r)) }
