package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/capability"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"join": strings.Join,
}).Parse(htmlSource))

// The view model: what the template prints, precomputed so the template
// stays free of logic.
type htmlView struct {
	*Report
	Title    string
	Sections []htmlRelease
}

type htmlRelease struct {
	Release
	Open     bool
	Outputs  outputsTable
	Matrices []matrix
	Layout   Layout
	// Isolated are the packages without dependencies either way: listed,
	// not drawn, so a release of independent packages is not one tall
	// column of boxes.
	Isolated []string
	// Vendored are the archives with vendored libraries.
	Vendored []archiveRow[VendoredLib]
	// Loads are the archives whose libraries load others at run time,
	// each load with its provider (Archive.RuntimeLoads).
	Loads []archiveRow[string]
}

// outputsTable is the outputs part: per package, what its buildRedist
// call declares (Release.BuildRedist, as print-buildredist prints it) and,
// per platform, what each archive needs.
type outputsTable struct {
	Platforms []string
	Rows      []outputsRow
	// Legacy: some cell shows legacy outputs (no buildRedist facts).
	Legacy bool
}

type outputsRow struct {
	Package, Version string
	// Declare is the outputs expression (nixExpression), "" when no
	// archive of the package has buildRedist facts; Settings are the other
	// attributes its call must set.
	Declare  string
	Settings []string
	// Legacy: every list of the row is legacy (the row is marked once,
	// not each cell).
	Legacy bool
	Cells  [][]variantOutputs // per platform, per variant
}

// variantOutputs is one archive's (or, for an archive with lib/<major>
// directories, one CUDA major's) outputs in a platform's cell.
type variantOutputs struct {
	Variant manifest.Variant
	Outputs []string
	// Legacy: Outputs are the legacy feature file's (no buildRedist
	// facts); NotBuilt: a Windows archive, which buildRedist does not build.
	Legacy, NotBuilt bool
}

type matrix struct {
	Platform string
	Archs    []string
	// Groups and Heads are the two header rows when a target carries an
	// a or f suffix: the SM numbers, each over its generic, family and
	// specific columns, then one short label per column. Without
	// suffixes, Heads alone (Groups nil) names each column.
	Groups []archGroup
	Heads  []archHead
	Rows   []matrixRow
}

type archGroup struct {
	Name string
	Span int
}

// archHead is one column's header: Label is what shows (the target name,
// or under a group "sm", "f", "a"), Title where its code runs.
type archHead struct {
	Label, Class, Title string
}

// archHeads builds the header rows for the architectures (sorted by
// capability.Less, so one SM's targets are adjacent).
func archHeads(archs []string) ([]archGroup, []archHead) {
	suffixed := false
	var groups []archGroup
	heads := make([]archHead, len(archs))
	for i, arch := range archs {
		t, err := capability.ParseTarget(arch)
		heads[i] = archHead{Label: arch, Class: "arch"}
		if err != nil {
			groups = append(groups, archGroup{Name: arch, Span: 1})
			continue
		}
		heads[i].Title = fmt.Sprintf("%s: SASS runs on %s; PTX JIT-compiles for %s", arch, t.Where(false), t.Where(true))
		base := capability.Target{SM: t.SM}.String()
		if n := len(groups); n > 0 && groups[n-1].Name == base {
			groups[n-1].Span++
		} else {
			groups = append(groups, archGroup{Name: base, Span: 1})
		}
		switch t.Kind {
		case capability.Family:
			suffixed = true
			heads[i].Class += " fam"
		case capability.Specific:
			suffixed = true
			heads[i].Class += " spec"
		}
	}
	if !suffixed {
		return nil, heads
	}
	for i, arch := range archs {
		if t, err := capability.ParseTarget(arch); err == nil {
			heads[i].Label = map[capability.Kind]string{capability.Generic: "sm", capability.Family: "f", capability.Specific: "a"}[t.Kind]
			heads[i].Class += " sub"
		}
	}
	return groups, heads
}

type matrixRow struct {
	Label string
	Cells []matrixCell
}

type matrixCell struct {
	ID, Arch, Class, Text, Title string
}

// WriteHTML renders the report as one self-contained HTML page: inline
// CSS, the graph as inline SVG, no script and no external resource.
func WriteHTML(w io.Writer, r *Report) error {
	v := htmlView{Report: r, Title: fmt.Sprintf("%s %s", r.Redist, strings.Join(r.Versions(), ", "))}
	for i := len(r.Releases) - 1; i >= 0; i-- {
		rel := r.Releases[i]
		v.Sections = append(v.Sections, htmlRelease{
			Release:  rel,
			Open:     i == len(r.Releases)-1,
			Outputs:  buildOutputsTable(rel),
			Matrices: buildMatrices(rel),
			Vendored: vendoredRows(rel),
			Loads:    archiveRows(rel, func(a Archive) []string { return a.RuntimeLoads }),
		})
		last := &v.Sections[len(v.Sections)-1]
		connected, isolated := splitIsolated(rel.Graph)
		last.Layout, last.Isolated = LayoutGraph(connected), isolated
	}
	return htmlTemplate.Execute(w, v)
}

// splitIsolated separates the nodes without edges from the rest.
func splitIsolated(g Graph) (Graph, []string) {
	linked := map[string]bool{}
	for _, e := range g.Edges {
		linked[e.From], linked[e.To] = true, true
	}
	connected := Graph{Edges: g.Edges}
	var isolated []string
	for _, n := range g.Nodes {
		if linked[n.Name] {
			connected.Nodes = append(connected.Nodes, n)
		} else {
			isolated = append(isolated, n.Name)
		}
	}
	return connected, isolated
}

func buildOutputsTable(rel Release) outputsTable {
	t := outputsTable{Platforms: rel.Platforms}
	for _, p := range rel.Packages {
		row := outputsRow{Package: p.Name, Version: p.Version, Cells: make([][]variantOutputs, len(rel.Platforms))}
		if d, ok := rel.BuildRedist[p.Name]; ok {
			row.Declare = d.NixExpression
			if d.IncludeRemoveStubsFromRunpathHook {
				row.Settings = append(row.Settings, "includeRemoveStubsFromRunpathHook = true;")
			}
			if d.AllowFHSReferences {
				row.Settings = append(row.Settings, "allowFHSReferences = true;")
			}
		}
		for i, platform := range rel.Platforms {
			for _, a := range p.Archives {
				if a.Platform == platform {
					row.Cells[i] = append(row.Cells[i], archiveOutputs(a)...)
				}
			}
		}
		markLegacy(&row)
		t.Legacy = t.Legacy || row.Legacy
		for _, c := range row.Cells {
			for _, vo := range c {
				t.Legacy = t.Legacy || vo.Legacy
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// markLegacy marks the row legacy, instead of each cell, when every list
// it shows is.
func markLegacy(row *outputsRow) {
	lists, legacy := 0, 0
	for _, c := range row.Cells {
		for _, vo := range c {
			if !vo.NotBuilt {
				lists++
			}
			if vo.Legacy {
				legacy++
			}
		}
	}
	if lists == 0 || legacy < lists {
		return
	}
	row.Legacy = true
	for _, c := range row.Cells {
		for i := range c {
			c[i].Legacy = false
		}
	}
}

// archiveOutputs is what an archive's cell shows: buildRedist's outputs,
// per CUDA major as buildRedist.json has them for an archive without a
// variant whose lib/<major> directories serve several; the legacy ones,
// marked, without buildRedist facts; nothing for Windows.
func archiveOutputs(a Archive) []variantOutputs {
	variant := a.Variant
	switch {
	case strings.HasPrefix(a.Platform, "windows"):
		return []variantOutputs{{Variant: variant, NotBuilt: true}}
	case len(a.Outputs) == 0:
		return []variantOutputs{{Variant: variant, Outputs: a.LegacyOutputs, Legacy: true}}
	case variant == manifest.NoVariant && len(a.OutputsByCudaMajor) > 0:
		var out []variantOutputs
		majors := sortedKeys(a.OutputsByCudaMajor)
		sort.Slice(majors, func(i, j int) bool { return CompareVersions(majors[i], majors[j]) < 0 })
		for _, major := range majors {
			out = append(out, variantOutputs{Variant: manifest.VariantName(major), Outputs: a.OutputsByCudaMajor[major]})
		}
		return out
	}
	return []variantOutputs{{Variant: variant, Outputs: a.Outputs}}
}

// buildMatrices makes one coverage matrix per platform with GPU code.
func buildMatrices(rel Release) []matrix {
	var out []matrix
	for _, platform := range rel.Platforms {
		m := matrix{Platform: platform, Archs: rel.Architectures}
		m.Groups, m.Heads = archHeads(rel.Architectures)
		for _, p := range rel.Packages {
			for _, a := range p.Archives {
				if a.Platform != platform || len(a.SASS)+len(a.PTX) == 0 {
					continue
				}
				m.Rows = append(m.Rows, matrixRowOf(rel, m.Heads, p.Name, a))
			}
		}
		if len(m.Rows) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// matrixRowOf is package name's archive a as a row of the matrix whose
// column heads are heads.
func matrixRowOf(rel Release, heads []archHead, name string, a Archive) matrixRow {
	label := name
	if a.Variant != manifest.NoVariant {
		label += " (" + a.Variant.String() + ")"
	}
	row := matrixRow{Label: label}
	sass, ptx := set(a.SASS), set(a.PTX)
	for i, arch := range rel.Architectures {
		c := matrixCell{ID: cellID(rel.Version, a.Platform, name, a.Variant.String(), arch), Arch: arch}
		kinds, classes := cellKinds(arch, sass[arch], ptx[arch], &c)
		// The column's kind (fam, spec) shades empty cells too,
		// so a family or specific column reads as one.
		for _, k := range []string{"fam", "spec"} {
			if strings.Contains(heads[i].Class, k) {
				classes = append(classes, k)
			}
		}
		c.Class = strings.Join(classes, " ")
		if arch == a.TopPTX {
			c.Class += " top"
			c.Text += "+"
			kinds = append(kinds, "newest PTX: newer GPUs JIT from it")
		}
		if len(kinds) > 0 {
			c.Title = fmt.Sprintf("%s %s on %s: %s", label, arch, a.Platform, strings.Join(kinds, ", "))
		}
		row.Cells = append(row.Cells, c)
	}
	return row
}

// cellKinds says what a cell of arch holds (SASS, PTX, each with where
// it runs) for its title, its classes, and writes its text (S, P, SP).
func cellKinds(arch string, sass, ptx bool, c *matrixCell) (kinds, classes []string) {
	t, terr := capability.ParseTarget(arch)
	if sass {
		kind := "SASS"
		if terr == nil {
			kind += " (runs on " + t.Where(false) + ")"
		}
		kinds, classes = append(kinds, kind), append(classes, "sass")
		c.Text = "S"
	}
	if ptx {
		kind := "PTX"
		if terr == nil {
			kind += " (JIT for " + t.Where(true) + ")"
		}
		kinds, classes = append(kinds, kind), append(classes, "ptx")
		c.Text += "P"
	}
	if len(classes) == 0 {
		classes = append(classes, "none")
	}
	return kinds, classes
}

// cellID names a coverage cell for tests and links: cov/version/platform/
// package/variant/arch.
func cellID(version, platform, pkg, variant, arch string) string {
	return strings.Join([]string{"cov", version, platform, pkg, variant, arch}, "/")
}

func set(l []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range l {
		m[s] = true
	}
	return m
}

// WriteJSON writes the report model as canonical JSON (sorted keys, two
// spaces, trailing newline), the schema of `print-feature-schema --format
// report`.
func WriteJSON(w io.Writer, r *Report) error {
	data, err := features.Encode(r)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
