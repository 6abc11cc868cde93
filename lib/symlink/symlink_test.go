package symlink

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// build makes a tree from "path" (directory when it ends in /),
// "path -> target" (symlink) or anything else (file).
func build(t *testing.T, specs ...string) *Tree[struct{}] {
	t.Helper()
	tr := New[struct{}]()
	for _, s := range specs {
		name, target, isLink := strings.Cut(s, " -> ")
		kind := File
		if strings.HasSuffix(name, "/") {
			kind = Dir
			name = strings.TrimSuffix(name, "/")
		}
		if isLink {
			kind = Symlink
		}
		dir := tr.Root
		parts := strings.Split(name, "/")
		for _, c := range parts[:len(parts)-1] {
			dir = dir.Child(c)
			if dir == nil {
				t.Fatalf("%s: parent missing", s)
			}
		}
		tr.Add(dir, parts[len(parts)-1], kind, target)
	}
	return tr
}

func TestResolve(t *testing.T) {
	tr := build(t,
		"a/", "a/file", "a/up -> ..", "a/abs -> /etc", "a/loop -> loop",
		"a/tofile -> file", "lib -> a", "a/ping -> pong", "a/pong -> ping")
	tests := []struct {
		dir     string
		path    string
		want    string
		wantErr error
	}{
		{"", "a/file", "a/file", nil},
		{"", "lib/tofile", "a/file", nil},
		{"a", "up/a/file", "a/file", nil},
		{"a", "../..", "", ErrEscapes},
		{"", "a/up/a/up/..", "", ErrEscapes},
		{"", "a/abs/passwd", "", ErrAbsolute},
		{"", "/etc", "", ErrAbsolute},
		{"", "a/loop", "", ErrLoop},
		{"", "a/ping/x", "", ErrLoop},
		{"", "a/missing/x", "a", ErrDangling},
		{"", "a/file/x", "a/file", ErrDangling},
		{"", "a/file/.", "a/file", nil},
		{"", "lib/up/lib/tofile", "a/file", nil},
	}
	for _, tc := range tests {
		got, err := tr.Resolve(tr.Lookup(tc.dir), tc.path)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("Resolve(%q, %q) error = %v, want %v", tc.dir, tc.path, err, tc.wantErr)
			continue
		}
		if tc.want != "" && got.Path() != tc.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", tc.dir, tc.path, got.Path(), tc.want)
		}
	}
}

// TestHopLimit: a chain of n links resolves when n <= MaxHops, like the
// kernel, whichever link of the chain is resolved first.
func TestHopLimit(t *testing.T) {
	for _, n := range []int{MaxHops, MaxHops + 1} {
		for _, first := range []int{0, n / 2, n - 1} {
			specs := []string{"f"}
			for i := 0; i < n; i++ {
				next := "f"
				if i+1 < n {
					next = fmt.Sprintf("l%d", i+1)
				}
				specs = append(specs, fmt.Sprintf("l%d -> %s", i, next))
			}
			tr := build(t, specs...)
			_, _ = tr.Resolve(tr.Root, fmt.Sprintf("l%d", first)) // memoises part of the chain
			_, err := tr.Resolve(tr.Root, "l0")
			if n <= MaxHops && err != nil {
				t.Errorf("chain of %d links (l%d resolved first): %v", n, first, err)
			}
			if n > MaxHops && !errors.Is(err, ErrLoop) {
				t.Errorf("chain of %d links (l%d resolved first): %v, want ErrLoop", n, first, err)
			}
		}
	}
}

// TestChainsLinear: links between the root and a directory 1000 levels
// deep, each legal, took minutes when every lookup re-walked the chain.
// Each target is now walked once (twice for the few links next to where a
// nesting too deep is cut off, which a later lookup resolves afresh), so
// the components stepped through are bounded by twice the targets' and
// the lookups' components, not by the clock.
func TestChainsLinear(t *testing.T) {
	const depth, links = 1000, 5000
	tr := New[struct{}]()
	dir := tr.Root
	for i := 0; i < depth; i++ {
		dir = tr.Add(dir, "d", Dir, "")
	}
	up := strings.TrimSuffix(strings.Repeat("../", depth), "/")
	down := strings.TrimSuffix(strings.Repeat("d/", depth), "/")
	components := 0 // of every target and every lookup
	for i := 0; i < links; i++ {
		u := tr.Add(dir, fmt.Sprintf("u%d", i), Symlink, fmt.Sprintf("%s/r%d", up, i))
		r := tr.Add(tr.Root, fmt.Sprintf("r%d", i), Symlink, fmt.Sprintf("%s/u%d", down, i+1))
		components += strings.Count(u.Target, "/") + 1 + strings.Count(r.Target, "/") + 1
	}
	// The budget cuts a run that would step through more short, with
	// ErrBudget, instead of letting it run for minutes.
	tr.Budget = 2*components + 2*links
	for i := 0; i < links; i++ {
		_, err := tr.Resolve(tr.Root, fmt.Sprintf("r%d", i))
		components++
		if errors.Is(err, ErrBudget) {
			t.Fatalf("r%d: %v: the lookups stepped through more than %d components, twice the targets' and lookups' (not linear)", i, err, tr.Budget)
		}
		if err != nil && !errors.Is(err, ErrLoop) && !errors.Is(err, ErrDangling) {
			t.Fatalf("r%d: %v", i, err)
		}
	}
	t.Logf("%d steps for %d components of targets and lookups", tr.Steps(), components)
	if tr.Steps() > 2*components {
		t.Fatalf("resolving %d chained links stepped through %d components, more than twice the %d of their targets and lookups",
			2*links, tr.Steps(), components)
	}
}

func TestBudget(t *testing.T) {
	tr := build(t, "a/", "a/f", "l -> a/f")
	tr.Budget = 3
	if _, err := tr.Resolve(tr.Root, "l"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Resolve(tr.Root, "a/./././f"); !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
}
