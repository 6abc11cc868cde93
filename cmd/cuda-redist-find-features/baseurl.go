package main

import (
	"os"
	"path/filepath"
	"strings"
)

// archiveURL reads a base URL of archives (process-manifests' URL,
// check-nixpkgs' --url): one without a scheme is the local directory it
// names, as file://, when that directory exists; otherwise it is refused
// now, with the form to use, rather than failing every fetch later.
func archiveURL(what, u string) (string, error) {
	if strings.Contains(u, "://") {
		return u, nil
	}
	if st, err := os.Stat(u); err == nil && st.IsDir() {
		return "file://" + mustAbs(u), nil
	}
	return "", usageErrorf("%s %q has no scheme and is no directory here: give https://... or, for a local directory, file://%s", what, u, filepath.ToSlash(mustAbs(u)))
}

// checkURLs applies archiveURL to each [REDIST=]URL of check-nixpkgs'
// --url.
func checkURLs(urls []string) ([]string, error) {
	out := make([]string, len(urls))
	for i, u := range urls {
		prefix, rest := "", u
		if name, url, ok := strings.Cut(u, "="); ok && !strings.Contains(name, "/") {
			prefix, rest = name+"=", url
		}
		fixed, err := archiveURL("--url", rest)
		if err != nil {
			return nil, err
		}
		out[i] = prefix + fixed
	}
	return out, nil
}
