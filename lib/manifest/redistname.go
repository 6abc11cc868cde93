package manifest

import (
	"path/filepath"
	"regexp"
	"strings"
)

// redistFromURL matches NVIDIA's layout of a redist's base URL:
// .../compute/<redist>/redist.
var redistFromURL = regexp.MustCompile(`/compute/([^/]+)/redist/?$`)

// RedistName names the redist of a manifest directory fetched from
// baseURL: the <name> of NVIDIA's .../compute/<name>/redist, else the
// directory's own name.
func RedistName(baseURL, dir string) string {
	if m := redistFromURL.FindStringSubmatch(strings.TrimSuffix(baseURL, "/")); m != nil {
		return m[1]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return filepath.Base(abs)
}
