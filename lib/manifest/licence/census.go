package licence

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Use is one package of one release: the licence its manifest names.
type Use struct {
	Redist      string `json:"redist"`
	Version     string `json:"version"`
	Package     string `json:"package"`
	License     string `json:"license"`
	LicensePath string `json:"licensePath"`
}

// Census reads every <redist>/redistrib_<version>.json under root and
// lists the licence of each package of each release, ordered by redist,
// release (in version order) and package. The number of manifests read
// is returned beside it.
func Census(root string) ([]Use, int, error) {
	redists, err := os.ReadDir(root)
	if err != nil {
		return nil, 0, fmt.Errorf("licence census: %w", err)
	}
	var uses []Use
	n := 0
	for _, d := range redists {
		if !d.IsDir() {
			continue
		}
		found, err := manifest.FindManifests(filepath.Join(root, d.Name()), manifest.Filter{})
		if err != nil {
			return nil, 0, fmt.Errorf("licence census of %s: %w", d.Name(), err)
		}
		for _, lm := range found {
			m, err := manifest.ReadFile(lm.Path)
			if err != nil {
				return nil, 0, fmt.Errorf("licence census: %w", err)
			}
			n++
			uses = append(uses, Uses(d.Name(), lm.Version, m)...)
		}
	}
	return uses, n, nil
}

// Uses lists the licence of each package of one manifest, by package.
func Uses(redist, version string, m *manifest.Manifest) []Use {
	var out []Use
	for _, pkg := range m.Packages() {
		r := m.Releases[pkg]
		out = append(out, Use{Redist: redist, Version: version, Package: pkg, License: r.License, LicensePath: r.LicensePath})
	}
	return out
}

// Summary is one licence string over a census.
type Summary struct {
	License string `json:"license"`
	// Packages are the distinct (redist, package) pairs that name it in
	// some release; Releases counts the package-releases.
	Packages []string `json:"packages"`
	Releases int      `json:"releases"`
	Redists  []string `json:"redists"`
	// LicensePaths are the distinct license_path values given with it
	// ("" when a manifest gives none).
	LicensePaths []string `json:"licensePaths"`
	// Attr is the table's attribute; "" when the table does not know the
	// string.
	Attr string `json:"attr"`
}

// Summarize groups a census by licence string, the most used first (then
// by string).
func Summarize(uses []Use) []Summary {
	type acc struct {
		pkgs, redists, paths map[string]bool
		releases             int
	}
	by := map[string]*acc{}
	for _, u := range uses {
		a := by[u.License]
		if a == nil {
			a = &acc{pkgs: map[string]bool{}, redists: map[string]bool{}, paths: map[string]bool{}}
			by[u.License] = a
		}
		a.pkgs[u.Redist+"/"+u.Package] = true
		a.redists[u.Redist] = true
		a.paths[u.LicensePath] = true
		a.releases++
	}
	var out []Summary
	for l, a := range by {
		s := Summary{License: l, Packages: keys(a.pkgs), Releases: a.releases, Redists: keys(a.redists), LicensePaths: keys(a.paths)}
		if e, ok := Lookup(l); ok {
			s.Attr = e.Attr
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Releases != out[j].Releases {
			return out[i].Releases > out[j].Releases
		}
		return out[i].License < out[j].License
	})
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WriteMarkdown writes docs/licences.md: the table with its sources, then
// every licence string of the census (manifests is how many were read).
func WriteMarkdown(w io.Writer, sums []Summary, manifests int) error {
	var b strings.Builder
	mapped := 0
	for _, s := range sums {
		if s.Attr != "" {
			mapped++
		}
	}
	b.WriteString("# Licences\n\n")
	b.WriteString("<!-- Generated from the pinned manifests (tests/testdata/nixpkgs-manifests) by\n")
	b.WriteString("     `UPDATE_GOLDEN=1 go test ./lib/manifest/licence -run TestLicencesDoc`;\n")
	b.WriteString("     the test fails when this page and the manifests disagree. -->\n\n")
	b.WriteString("Every release of an NVIDIA manifest names its licence (`license`) and, in\n")
	b.WriteString("most, where the archive keeps its text (`license_path`). Nixpkgs'\n")
	b.WriteString("`buildRedist` gives a package file that sets no `meta.license` one default:\n")
	fmt.Fprintf(&b, "`%s` for the cuda redist, `%s` for every other. Its own comment asks\n", Default("cuda"), Default("other"))
	b.WriteString("every package to set its own, since some packages called redistributable\n")
	b.WriteString("are not licensed for redistribution. The table below (lib/manifest/licence)\n")
	b.WriteString("is the one mapping from a manifest's string to a Nixpkgs attribute;\n")
	b.WriteString("`check-nixpkgs` and the reports use it. A string it does not hold is\n")
	b.WriteString("reported as unknown, never mapped by a guess.\n\n")
	b.WriteString("## The table\n\n| manifest `license` | Nixpkgs attribute | source |\n|---|---|---|\n")
	for _, e := range Table() {
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", cell(e.License), e.Attr, cell(e.Source))
	}
	fmt.Fprintf(&b, "\n## Every licence string of %d manifests\n\n", manifests)
	fmt.Fprintf(&b, "%d licence strings; the table maps %d, %d are unknown to it.\n", len(sums), mapped, len(sums)-mapped)
	b.WriteString("Packages: distinct redist/package names; releases: package-releases.\n\n")
	b.WriteString("| `license` | packages | releases | redists | Nixpkgs attribute | `license_path` values |\n|---|---|---|---|---|---|\n")
	for _, s := range sums {
		attr := "unknown (not in the table)"
		if s.Attr != "" {
			attr = "`" + s.Attr + "`"
		}
		paths := make([]string, len(s.LicensePaths))
		for i, p := range s.LicensePaths {
			if p == "" {
				p = "(none)"
			}
			paths[i] = p
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s |\n", cell(s.License), len(s.Packages), s.Releases,
			cell(strings.Join(s.Redists, ", ")), attr, cell(strings.Join(paths, ", ")))
	}
	b.WriteString("\n## Packages per licence string\n\n")
	for _, s := range sums {
		fmt.Fprintf(&b, "- %s: %s\n", cell(s.License), cell(strings.Join(s.Packages, ", ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes a manifest's string one Markdown table cell on one line:
// a '|' or a line break in it would end the cell or the row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
