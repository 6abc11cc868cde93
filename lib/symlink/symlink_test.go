package symlink

import (
	"errors"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tree := map[string]Node{
		"a":        {Exists: true, IsDir: true},
		"a/file":   {Exists: true},
		"a/up":     {Exists: true, IsSymlink: true, Target: ".."},
		"a/abs":    {Exists: true, IsSymlink: true, Target: "/etc"},
		"a/loop":   {Exists: true, IsSymlink: true, Target: "loop"},
		"a/tofile": {Exists: true, IsSymlink: true, Target: "file"},
		"lib":      {Exists: true, IsSymlink: true, Target: "a"},
	}
	lookup := func(c []string) Node { return tree[strings.Join(c, "/")] }
	tests := []struct {
		dir     []string
		path    string
		want    string
		wantErr error
	}{
		{nil, "a/file", "a/file", nil},
		{nil, "lib/tofile", "a/file", nil},
		{[]string{"a"}, "up/a/file", "a/file", nil},
		{[]string{"a"}, "../..", "", ErrEscapes},
		{nil, "a/up/a/up/..", "", ErrEscapes},
		{nil, "a/abs/passwd", "", ErrAbsolute},
		{nil, "/etc", "", ErrAbsolute},
		{nil, "a/loop", "", ErrLoop},
		{nil, "a/missing/x", "a/missing", ErrDangling},
		{nil, "a/file/x", "a/file", ErrDangling},
		{nil, "a/file/.", "a/file", nil},
	}
	for _, tc := range tests {
		got, err := Resolve(tc.dir, tc.path, lookup)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("Resolve(%v, %q) error = %v, want %v", tc.dir, tc.path, err, tc.wantErr)
			continue
		}
		if tc.want != "" && strings.Join(got, "/") != tc.want {
			t.Errorf("Resolve(%v, %q) = %q, want %q", tc.dir, tc.path, strings.Join(got, "/"), tc.want)
		}
	}
}
