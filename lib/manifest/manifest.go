package manifest

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsonpos"
)

//go:embed keys.json
var keysJSON []byte

// Keys are the known keys of each level of a manifest.
var Keys = func() struct {
	Metadata  []string `json:"metadata"`
	Release   []string `json:"release"`
	Platforms []string `json:"platforms"`
	Leaf      []string `json:"leaf"`
} {
	var k struct {
		Metadata  []string `json:"metadata"`
		Release   []string `json:"release"`
		Platforms []string `json:"platforms"`
		Leaf      []string `json:"leaf"`
	}
	if err := json.Unmarshal(keysJSON, &k); err != nil {
		panic("manifest: keys.json: " + err.Error())
	}
	return k
}()

func isOneOf(s string, list []string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Manifest is one parsed redistrib_<version>.json.
type Manifest struct {
	// Source names the manifest in error messages (usually its path).
	Source   string
	Date     string
	Label    string
	Product  string
	Releases map[string]*Release
}

// Release is one package of a manifest.
type Release struct {
	Package     string
	Name        string
	License     string
	LicensePath string
	Version     string
	Variants    []Variant // cuda_variant, nil for v2
	Archives    []Archive
}

// Info is the release as the index format's releaseInfo holds it. (The
// pipeline's aggregate takes it from the Nix walker, nix/manifest.nix.)
func (r *Release) Info() features.ReleaseInfo {
	return features.ReleaseInfo{License: r.License, LicensePath: r.LicensePath, Name: r.Name, Version: r.Version}
}

// Archive is one downloadable archive: package × platform × variant.
// It is the one type of an archive: the Nix walker's entries
// (lib/nixdriver.Entry), the aggregate builder's attributes and facts
// (lib/aggregate) and the checks (lib/check/nixpkgscheck) embed it. Its
// JSON names are the pipeline's (nix/cli.nix, nix/pipeline.nix).
type Archive struct {
	Package      string  `json:"package"`
	Platform     string  `json:"platform"`
	Variant      Variant `json:"variant"`
	RelativePath string  `json:"relativePath"`
	SHA256       string  `json:"sha256"`
	MD5          string  `json:"md5,omitempty"`
	Size         string  `json:"size,omitempty"`
}

// ID names the archive in messages: "pkg/platform[/variant]".
func (a Archive) ID() string {
	s := a.Package + "/" + a.Platform
	if a.Variant != NoVariant {
		s += "/" + string(a.Variant)
	}
	return s
}

var (
	// SHA256Hex is an archive's sha256 as manifests spell it.
	SHA256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// variantName: cuda12, and from CUDA 13.1's cuda_compat a major.minor
	// version, cuda13.1.
	variantName = regexp.MustCompile(`^cuda[0-9]+(\.[0-9]+)?$`)
	// SafeRelativePath is what relative_path may be: components of the
	// characters a store path name can hold ([A-Za-z0-9+._-]; not '?' and
	// '=', which a URL would read as a query), none starting with '.'
	// (so no "." and ".."), no leading '/'. nix/manifest.nix lists only the
	// archives whose path it matches.
	SafeRelativePath = regexp.MustCompile(`^[A-Za-z0-9+_-][A-Za-z0-9+._-]*(/[A-Za-z0-9+_-][A-Za-z0-9+._-]*)*$`)
)

// MaxRelativePathLength bounds relative_path as a whole (Linux's
// PATH_MAX): no archive NVIDIA publishes comes near it, and Nix's regular
// expressions (nix/manifest.nix, which checks the same bound first) run
// out of stack on strings of some hundred kB.
const MaxRelativePathLength = 4096

// maxVariantNameLength bounds a variant's name (cuda12, cuda13.1), for
// the same reason: nix/manifest.nix takes no longer key for a variant.
const maxVariantNameLength = 16

// isVariantName: s names a CUDA variant.
func isVariantName(s string) bool {
	return len(s) <= maxVariantNameLength && variantName.MatchString(s)
}

// MaxArchiveNameLength bounds the archive's file name: the store path
// names derived from it (name-features.json) must stay under Nix's 211.
const MaxArchiveNameLength = 180

// ReadFile parses the manifest at path.
func ReadFile(path string) (*Manifest, error) {
	data, err := inputfile.Read(path, inputfile.MaxManifest)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a manifest. Unknown keys are errors that name the manifest
// and the key: a new NVIDIA layout must be looked at, not guessed.
func Parse(source string, data []byte) (*Manifest, error) {
	if err := CheckJSON(source, data); err != nil {
		return nil, err
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return nil, fmt.Errorf("manifest %s: top level is %s, not an object", source, root.Type)
	}
	m := &Manifest{Source: source, Releases: map[string]*Release{}}
	var err error
	root.ForEach(func(key, value gjson.Result) bool {
		k := key.String()
		switch {
		case isOneOf(k, Keys.Metadata):
			err = setString(fmt.Sprintf("manifest %s", source), k, value, map[string]*string{
				"release_date": &m.Date, "release_label": &m.Label, "release_product": &m.Product,
			})
			if err != nil {
				return false
			}
		case value.IsObject():
			var r *Release
			r, err = parseRelease(source, k, value)
			if err != nil {
				return false
			}
			m.Releases[k] = r
		default:
			err = fmt.Errorf("manifest %s: unknown top-level key %q (a %s)", source, k, value.Type)
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func parseRelease(source, pkg string, v gjson.Result) (*Release, error) {
	r := &Release{Package: pkg}
	where := fmt.Sprintf("manifest %s: package %s", source, pkg)
	for _, field := range []struct {
		key string
		dst *string
	}{{"name", &r.Name}, {"license", &r.License}, {"license_path", &r.LicensePath}, {"version", &r.Version}} {
		f := v.Get(gjson.Escape(field.key))
		if f.Exists() && f.Type != gjson.String {
			return nil, fmt.Errorf("%s: %s is %s, not a string", where, field.key, f.Type)
		}
		*field.dst = f.String()
	}
	if r.Version == "" {
		return nil, fmt.Errorf("%s: no version", where)
	}
	if cv := v.Get("cuda_variant"); cv.Exists() {
		if !cv.IsArray() {
			return nil, fmt.Errorf("%s: cuda_variant is not a list", where)
		}
		r.Variants = []Variant{} // present, even if empty: variants must be listed
		for _, x := range cv.Array() {
			if x.Type != gjson.String {
				return nil, fmt.Errorf("%s: cuda_variant holds %s, not a string", where, x.Type)
			}
			r.Variants = append(r.Variants, VariantName(x.String()))
		}
	}
	var err error
	v.ForEach(func(key, value gjson.Result) bool {
		k := key.String()
		switch {
		case isOneOf(k, Keys.Release):
			return true
		case !isOneOf(k, Keys.Platforms):
			err = fmt.Errorf("%s: unknown key %q (not a known platform or release field)", where, k)
			return false
		case !value.IsObject():
			err = fmt.Errorf("%s: platform %s is %s, not an object", where, k, value.Type)
			return false
		}
		var archives []Archive
		archives, err = parsePlatform(where, pkg, k, value, r.Variants)
		r.Archives = append(r.Archives, archives...)
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(r.Archives, func(i, j int) bool { return r.Archives[i].ID() < r.Archives[j].ID() })
	return r, nil
}

// parsePlatform reads a platform value: an archive (v2, and `source` in
// v3), a map from variant to archive (v3), or both side by side (cuDNN
// 9.27's windows-arm64: an archive with no variant beside a cuda13 one).
// Beside relative_path, the keys named like a variant are variants and
// the others the archive's fields (parseLeaf refuses unknown ones); the
// archive has no variant.
func parsePlatform(where, pkg, platform string, v gjson.Result, variants []Variant) ([]Archive, error) {
	var out []Archive
	var err error
	if v.Get("relative_path").Exists() {
		var a Archive
		a, err = parseLeaf(where+": platform "+platform, leafFields(v))
		a.Package, a.Platform = pkg, platform
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	v.ForEach(func(key, value gjson.Result) bool {
		variant := Variant(key.String())
		if out != nil && !IsVariant(variant) {
			return true // a field of the archive above
		}
		at := fmt.Sprintf("%s: platform %s: variant %s", where, platform, variant)
		if !IsVariant(variant) {
			err = fmt.Errorf("%s: unknown key (neither an archive field nor a cudaNN variant)", at)
			return false
		}
		if variants != nil && !slices.Contains(variants, variant) {
			err = fmt.Errorf("%s: not listed in cuda_variant %v", at, variants)
			return false
		}
		if !value.IsObject() {
			err = fmt.Errorf("%s: is %s, not an object", at, value.Type)
			return false
		}
		var a Archive
		a, err = parseLeaf(at, value)
		a.Package, a.Platform, a.Variant = pkg, platform, variant
		out = append(out, a)
		return err == nil
	})
	return out, err
}

// leafFields is the archive of a platform value that may also hold
// variants: the value without its variant-named members, as JSON.
func leafFields(v gjson.Result) gjson.Result {
	mixed := false
	v.ForEach(func(key, _ gjson.Result) bool {
		mixed = isVariantName(key.String())
		return !mixed
	})
	if !mixed {
		return v // the usual archive: nothing to take out
	}
	fields := map[string]json.RawMessage{}
	v.ForEach(func(key, value gjson.Result) bool {
		if !isVariantName(key.String()) {
			fields[key.String()] = json.RawMessage(value.Raw)
		}
		return true
	})
	data, _ := json.Marshal(fields) // raw values gjson has already parsed
	return gjson.ParseBytes(data)
}

func parseLeaf(where string, v gjson.Result) (Archive, error) {
	var a Archive
	var err error
	fields := map[string]*string{"relative_path": &a.RelativePath, "sha256": &a.SHA256, "md5": &a.MD5, "size": &a.Size}
	v.ForEach(func(key, value gjson.Result) bool {
		k := key.String()
		if !isOneOf(k, Keys.Leaf) {
			err = fmt.Errorf("%s: unknown archive field %q", where, k)
			return false
		}
		err = setString(where, k, value, fields)
		return err == nil
	})
	if err != nil {
		return a, err
	}
	switch {
	case a.RelativePath == "":
		return a, fmt.Errorf("%s: no relative_path", where)
	case len(a.RelativePath) > MaxRelativePathLength:
		return a, fmt.Errorf("%s: relative_path of %d bytes, more than %d", where, len(a.RelativePath), MaxRelativePathLength)
	case strings.HasPrefix(a.RelativePath, "/") || strings.Contains("/"+a.RelativePath+"/", "/../"):
		return a, fmt.Errorf("%s: relative_path %q leaves the base URL", where, a.RelativePath)
	case !SafeRelativePath.MatchString(a.RelativePath):
		return a, fmt.Errorf("%s: relative_path %q is unsafe: want components of [A-Za-z0-9+._-], none starting with '.'", where, a.RelativePath)
	case len(a.RelativePath[strings.LastIndex(a.RelativePath, "/")+1:]) > MaxArchiveNameLength:
		return a, fmt.Errorf("%s: relative_path %q: file name longer than %d characters", where, a.RelativePath, MaxArchiveNameLength)
	case !SHA256Hex.MatchString(a.SHA256):
		return a, fmt.Errorf("%s: sha256 %q is not 64 lowercase hex digits", where, a.SHA256)
	}
	return a, nil
}

// setString stores a string value in the field named by key.
func setString(where, key string, value gjson.Result, fields map[string]*string) error {
	if value.Type != gjson.String {
		return fmt.Errorf("%s: %s is %s, not a string", where, key, value.Type)
	}
	if dst, ok := fields[key]; ok {
		*dst = value.String()
	}
	return nil
}

// Archives lists every archive of the manifest, sorted by ID.
func (m *Manifest) Archives() []Archive {
	var out []Archive
	for _, pkg := range m.Packages() {
		out = append(out, m.Releases[pkg].Archives...)
	}
	return out
}

// Archive finds the archive of package × platform × variant.
func (m *Manifest) Archive(pkg, platform string, variant Variant) (Archive, bool) {
	r, ok := m.Releases[pkg]
	if !ok {
		return Archive{}, false
	}
	for _, a := range r.Archives {
		if a.Platform == platform && a.Variant == variant {
			return a, true
		}
	}
	return Archive{}, false
}

// Packages lists the package names, sorted.
func (m *Manifest) Packages() []string {
	out := make([]string, 0, len(m.Releases))
	for p := range m.Releases {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ConventionalPath is the relative path NVIDIA usually gives an archive:
// <pkg>/<platform>/<pkg>-<platform>-<version>[_<variant>]-archive.tar.xz
// (.zip on Windows). The index format records relativePath only when an
// archive's path differs from it.
func ConventionalPath(pkg, platform, version string, variant Variant) string {
	ext := "tar.xz"
	if strings.HasPrefix(platform, "windows") {
		ext = "zip"
	}
	v := version
	if variant != NoVariant {
		v += "_" + string(variant)
	}
	return fmt.Sprintf("%s/%s/%s-%s-%s-archive.%s", pkg, platform, pkg, platform, v, ext)
}

// CheckJSON fails unless data is exactly one JSON value, nested at most
// jsoncheck.MaxDepth deep, in which no object repeats a key. gjson reads
// the first of two equal keys and Nix's builtins.fromJSON the last, so a
// manifest with duplicates would be two different manifests to the two
// sides: it is refused, naming where.
func CheckJSON(source string, data []byte) error {
	err := jsoncheck.Check(data)
	var e *jsoncheck.Error
	if errors.As(err, &e) && e.Kind != jsoncheck.ErrSyntax {
		// The place in the manifest's own terms (package, platform).
		err = jsonpos.WrapAt(source, data, e.Offset, errors.New(describePath(e.Path)+e.Message()))
		return fmt.Errorf("manifest %w", err)
	}
	if err != nil {
		return fmt.Errorf("manifest %w", jsoncheck.Place(source, data, err))
	}
	return nil
}

// describePath names a place in a manifest as the parser's errors do.
func describePath(path []string) string {
	var b strings.Builder
	for i, k := range path {
		if i == 4 { // deeper than any manifest goes: say how much deeper
			fmt.Fprintf(&b, "and %d keys deeper: ", len(path)-i)
			break
		}
		switch i {
		case 0:
			fmt.Fprintf(&b, "package %s: ", k)
		case 1:
			fmt.Fprintf(&b, "platform %s: ", k)
		case 2:
			fmt.Fprintf(&b, "variant %s: ", k)
		default:
			fmt.Fprintf(&b, "key %s: ", k)
		}
	}
	if len(path) == 0 {
		return "top level: "
	}
	return b.String()
}
