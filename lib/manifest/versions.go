package manifest

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/hashicorp/go-version"
)

// ManifestFile matches the name of a manifest: redistrib_<version>.json,
// with 2 to 4 numeric components (nvpl has redistrib_25.5.json). Feature
// files (feature_<version>.json) never match.
var ManifestFile = regexp.MustCompile(`^redistrib_(\d+\.\d+(?:\.\d+){0,2})\.json$`)

// Filter selects manifest versions: one exact version, or a range.
type Filter struct {
	exact, min, max *version.Version
}

// ErrExclusive is returned when --version is combined with a range.
var ErrExclusive = errors.New("--version is mutually exclusive with --min-version and --max-version")

// NewFilter parses the filter flags; empty strings mean "no bound".
func NewFilter(exact, min, max string) (Filter, error) {
	var f Filter
	if exact != "" && (min != "" || max != "") {
		return f, ErrExclusive
	}
	parse := func(flag, s string) (*version.Version, error) {
		if s == "" {
			return nil, nil
		}
		v, err := version.NewVersion(s)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flag, s, err)
		}
		return v, nil
	}
	var err error
	if f.exact, err = parse("--version", exact); err != nil {
		return f, err
	}
	if f.min, err = parse("--min-version", min); err != nil {
		return f, err
	}
	if f.max, err = parse("--max-version", max); err != nil {
		return f, err
	}
	if f.min != nil && f.max != nil && f.min.GreaterThan(f.max) {
		return f, fmt.Errorf("--min-version %s is greater than --max-version %s", f.min, f.max)
	}
	return f, nil
}

// Match reports whether version s passes the filter. A version that
// cannot be compared (a number overflows) is an error when the filter
// has to compare it, never silently left out.
func (f Filter) Match(s string) (bool, error) {
	if f.exact == nil && f.min == nil && f.max == nil {
		return true, nil
	}
	v, err := version.NewVersion(s)
	if err != nil {
		return false, fmt.Errorf("version %q cannot be compared with the filter: %w", s, err)
	}
	switch {
	case f.exact != nil:
		return v.Equal(f.exact), nil
	case f.min != nil && v.LessThan(f.min):
		return false, nil
	case f.max != nil && v.GreaterThan(f.max):
		return false, nil
	}
	return true, nil
}

// SortVersions orders version strings numerically (a string that is not
// a version by its bytes). Each is parsed once, not once per comparison:
// an index page may list hundreds of thousands.
func SortVersions(vs []string) {
	type parsed struct {
		s string
		v *version.Version // nil: not a version
	}
	ps := make([]parsed, len(vs))
	for i, s := range vs {
		v, err := version.NewVersion(s)
		if err != nil {
			v = nil
		}
		ps[i] = parsed{s, v}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.v == nil || b.v == nil {
			return a.s < b.s
		}
		return a.v.LessThan(b.v)
	})
	for i, p := range ps {
		vs[i] = p.s
	}
}

// CompareVersions orders two version strings as SortVersions does: -1,
// 0 or 1.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	vs := []string{b, a}
	SortVersions(vs)
	if vs[0] == a {
		return -1
	}
	return 1
}

// LocalManifest is a manifest file found in a directory.
type LocalManifest struct {
	Version string
	Path    string
}

// FindManifests lists the redistrib_<version>.json files in dir that pass
// the filter, in version order.
func FindManifests(dir string, f Filter) ([]LocalManifest, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var versions []string
	var errs []error
	for _, e := range entries {
		m := ManifestFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		ok, err := f.Match(m[1])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err))
		}
		if ok {
			versions = append(versions, m[1])
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	SortVersions(versions)
	out := make([]LocalManifest, len(versions))
	for i, v := range versions {
		out[i] = LocalManifest{Version: v, Path: filepath.Join(dir, "redistrib_"+v+".json")}
	}
	return out, nil
}

//go:embed base-urls.json
var baseURLsJSON []byte

// BaseURL returns NVIDIA's base URL for a redist ("cuda", "cudnn", ...),
// from base-urls.json (shared with nix/bundled.nix).
func BaseURL(redist string) (string, bool) {
	var urls map[string]string
	if err := json.Unmarshal(baseURLsJSON, &urls); err != nil {
		panic("manifest: base-urls.json: " + err.Error())
	}
	u, ok := urls[redist]
	return u, ok && redist != "comment"
}

// LibraryFiles are the files of this directory the Nix library reads
// (nix/manifest.nix, nix/bundled.nix), by name, as embedded: nixlib
// writes them beside the embedded nix/*.nix.
func LibraryFiles() map[string][]byte {
	return map[string][]byte{"keys.json": keysJSON, "base-urls.json": baseURLsJSON}
}
