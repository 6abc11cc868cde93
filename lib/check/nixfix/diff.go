package nixfix

import (
	"fmt"
	"strings"
)

// contextLines is the number of unchanged lines a hunk shows around a change.
const contextLines = 3

// Diff is the unified diff from old to new, with the headers "--- a/NAME"
// and "+++ b/NAME" ("--- /dev/null" for a new file: old == ""), "" when
// they are equal. Lines are compared after the common head and tail are
// set aside, so the cost is that of the changed middle (an LCS table of
// its lines), and a fix changes few lines.
func Diff(name, old, new string) string {
	if old == new {
		return ""
	}
	from := "a/" + name
	if old == "" {
		from = "/dev/null"
	}
	return "--- " + from + "\n+++ b/" + name + "\n" + hunksOf(old, new)
}

// RenameDiff is the diff of a file moved from one name to another with
// its text changed from old to new, as git writes a rename (which git
// apply and patch follow).
func RenameDiff(from, to, old, new string) string {
	return "diff --git a/" + from + " b/" + to + "\nrename from " + from + "\nrename to " + to + "\n--- a/" + from + "\n+++ b/" + to + "\n" + hunksOf(old, new)
}

// DeleteDiff is the diff removing a file that held old, as git writes a
// deletion (which git apply and patch follow).
func DeleteDiff(name, old string) string {
	return "diff --git a/" + name + " b/" + name + "\ndeleted file mode 100644\n--- a/" + name + "\n+++ /dev/null\n" + hunksOf(old, "")
}

// hunksOf are the hunks of the diff from old to new.
func hunksOf(old, new string) string {
	a, b := splitLines(old), splitLines(new)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := lcsOps(a[head:len(a)-tail], b[head:len(b)-tail])
	var all []op
	for _, l := range a[:head] {
		all = append(all, op{' ', l})
	}
	all = append(all, ops...)
	for _, l := range a[len(a)-tail:] {
		all = append(all, op{' ', l})
	}
	return hunks(all)
}

// splitLines splits text into lines, each with its "\n"; a last line
// without one is marked as Nix's diff does.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

// op is one line of a diff: ' ', '-' or '+'.
type op struct {
	kind byte
	line string
}

// lcsOps is the shortest edit from a to b, by a longest common
// subsequence table; a removed line comes before the line replacing it,
// as diff -u shows them.
func lcsOps(a, b []string) []op {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, op{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || t[i+1][j] >= t[i][j+1]):
			out = append(out, op{'-', a[i]})
			i++
		default:
			out = append(out, op{'+', b[j]})
			j++
		}
	}
	return out
}

// hunks groups the ops into unified-diff hunks with context lines.
func hunks(ops []op) string {
	var b strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-contextLines)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*contextLines {
				end = min(end+contextLines, len(ops))
				break
			}
			end = run
		}
		writeHunk(&b, ops, start, end)
		i = end
	}
	return b.String()
}

func writeHunk(b *strings.Builder, ops []op, start, end int) {
	oldStart, newStart := 1, 1
	for _, o := range ops[:start] {
		if o.kind != '+' {
			oldStart++
		}
		if o.kind != '-' {
			newStart++
		}
	}
	oldLen, newLen := 0, 0
	for _, o := range ops[start:end] {
		if o.kind != '+' {
			oldLen++
		}
		if o.kind != '-' {
			newLen++
		}
	}
	if oldLen == 0 {
		oldStart--
	}
	if newLen == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", span(oldStart, oldLen), span(newStart, newLen))
	for _, o := range ops[start:end] {
		b.WriteByte(o.kind)
		b.WriteString(o.line)
	}
}

// span is a hunk's "start,length" (just "start" for one line).
func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
