package main

import (
	"bytes"
	"fmt"
	flag "github.com/spf13/pflag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func compareCommand() command {
	return command{
		name:    "compare",
		args:    "EXPECTED ACTUAL",
		summary: "Compare two files or trees byte for byte (the golden checks of `nix flake check` use it).",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			touch := fs.String("touch", "", "when they are equal, create this (empty) file: a Nix check's output")
			return func(args []string) error {
				if len(args) != 2 {
					return usageErrorf("compare takes EXPECTED and ACTUAL")
				}
				diffs, err := diffTrees(args[0], args[1])
				if err != nil {
					return err
				}
				if len(diffs) > 0 {
					for _, d := range diffs {
						fmt.Fprintln(e.stderr, d)
					}
					return fmt.Errorf("%s and %s differ in %d place(s)", args[0], args[1], len(diffs))
				}
				if *touch != "" {
					return os.WriteFile(*touch, nil, 0o644)
				}
				return nil
			}
		},
	}
}

// diffTrees lists how two paths differ: missing or extra entries, and for
// differing files the first differing line.
func diffTrees(expected, actual string) ([]string, error) {
	want, err := listTree(expected)
	if err != nil {
		return nil, err
	}
	got, err := listTree(actual)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for rel, mode := range want {
		d, err := diffEntry(expected, actual, rel, mode, got)
		if err != nil {
			return nil, err
		}
		if d != "" {
			diffs = append(diffs, d)
		}
	}
	for rel := range got {
		if _, ok := want[rel]; !ok {
			diffs = append(diffs, "unexpected: "+rel)
		}
	}
	return diffs, nil
}

// listTree maps each path under root (root itself is ".") to its type.
func listTree(root string) (map[string]fs.FileMode, error) {
	out := map[string]fs.FileMode{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = d.Type()
		return nil
	})
	return out, err
}

// diffEntry says how the entry rel of the expected tree, of type mode,
// differs in the actual one (got lists its types); "" when it does not.
func diffEntry(expected, actual, rel string, mode fs.FileMode, got map[string]fs.FileMode) (string, error) {
	gmode, ok := got[rel]
	switch {
	case !ok:
		return "missing: " + rel, nil
	case gmode != mode:
		return fmt.Sprintf("%s: type %v, want %v", rel, gmode, mode), nil
	case !mode.IsRegular():
		return "", nil
	}
	a, err := os.ReadFile(filepath.Join(expected, rel))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(actual, rel))
	if err != nil {
		return "", err
	}
	if bytes.Equal(a, b) {
		return "", nil
	}
	return firstDifference(rel, string(a), string(b)), nil
}

func firstDifference(name, want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("%s:%d:\n  want %q\n  got  %q", name, i+1, w, g)
		}
	}
	return name + ": differs"
}
