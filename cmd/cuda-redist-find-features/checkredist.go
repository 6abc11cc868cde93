package main

import (
	"os"
	"path/filepath"
	"strings"
)

// redistDirs adds the directories of --redist NAME=DIR to the manifest
// directories (once) and maps each to its redist name; a directory
// without one is named after itself.
func redistDirs(dirs []string, redists []string) ([]string, map[string]string, error) {
	names := map[string]string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		seen[mustAbs(d)] = true
	}
	for _, r := range redists {
		name, dir, err := parseRedist(r)
		if err != nil {
			return nil, nil, err
		}
		abs := mustAbs(dir)
		if other, dup := names[abs]; dup && other != name {
			return nil, nil, usageErrorf("--redist: %s is named both %s and %s", dir, other, name)
		}
		names[abs] = name
		if !seen[abs] {
			seen[abs] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs, names, nil
}

// parseRedist reads one --redist NAME=DIR.
func parseRedist(r string) (name, dir string, err error) {
	name, dir, ok := strings.Cut(r, "=")
	if !ok || name == "" || dir == "" || strings.ContainsAny(name, `/"\`) {
		return "", "", usageErrorf("--redist %q: want NAME=DIR (NAME a redist name such as cuda or cudnn)", r)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "", usageErrorf("--redist %s: %s is no directory", r, dir)
	}
	return name, dir, nil
}

// redistName is the redist a manifest directory holds.
func (c *checkRun) redistName(dir string) string {
	if name, ok := c.redists[mustAbs(dir)]; ok {
		return name
	}
	return filepath.Base(mustAbs(dir))
}
