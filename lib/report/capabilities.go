package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// AddCoverage computes, for each release, what the GPUs of these Nixpkgs
// cudaCapabilities entries get from its archives (lib/check/coverage), from the
// aggregates the report was built of; the report then shows one table per
// platform (package × capability) and lists the libraries that get
// nothing.
func (r *Report) AddCoverage(aggs []*Aggregate, caps []coverage.Capability) error {
	if len(caps) == 0 {
		return nil
	}
	byVersion := map[string]*Aggregate{}
	for _, a := range aggs {
		byVersion[a.Version] = a
	}
	r.Capabilities = coverage.Names(caps)
	for i := range r.Releases {
		a, ok := byVersion[r.Releases[i].Version]
		if !ok {
			return fmt.Errorf("capability coverage: no aggregate of release %s", r.Releases[i].Version)
		}
		cov, err := coverage.OfDetail(a.Detail, caps)
		if err != nil {
			return fmt.Errorf("capability coverage of %s %s: %w", a.Redist, a.Version, err)
		}
		r.Releases[i].Coverage = cov
	}
	return nil
}

// capMatrix is one platform's capability table.
type capMatrix struct {
	Platform     string
	Capabilities []string
	Rows         []capRow
}

type capRow struct {
	Label string
	Cells []capCell
}

// capCell is one archive on one capability's GPU: Class is the support
// (sass, ptx, none), Title what each library gets.
type capCell struct {
	ID, Class, Text, Title string
}

// capText is what a cell shows.
var capText = map[coverage.Support]string{coverage.SASS: "S", coverage.PTX: "P", coverage.None: "none"}

// CapabilityMatrices are the release's capability tables, one per
// platform with device code, for the template.
func (rel Release) CapabilityMatrices() []capMatrix {
	if rel.Coverage == nil {
		return nil
	}
	var out []capMatrix
	for _, platform := range rel.Platforms {
		m := capMatrix{Platform: platform, Capabilities: rel.Coverage.Capabilities}
		for _, a := range rel.Coverage.Archives {
			if a.Platform != platform || len(a.Libraries) == 0 {
				continue
			}
			m.Rows = append(m.Rows, capabilityRow(rel.Version, a, m.Capabilities))
		}
		if len(m.Rows) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func capabilityRow(version string, a coverage.Archive, caps []string) capRow {
	row := capRow{Label: a.Package}
	if a.Variant != manifest.NoVariant {
		row.Label += " (" + a.Variant.String() + ")"
	}
	for _, c := range caps {
		s := a.Coverage[c]
		var libs []string
		for _, l := range a.Libraries {
			cell := l.Coverage[c]
			libs = append(libs, strings.TrimSpace(fmt.Sprintf("%s: %s %s", l.Path, cell.Support, strings.Join(cell.Targets, " "))))
		}
		row.Cells = append(row.Cells, capCell{
			ID:    strings.Join([]string{"cap", version, a.Platform, a.Package, a.Variant.String(), c}, "/"),
			Class: string(s), Text: capText[s],
			Title: fmt.Sprintf("%s on a GPU of cudaCapabilities %s: %s\n%s", row.Label, c, s, strings.Join(libs, "\n")),
		})
	}
	return row
}

// capabilitiesSource is the "capabilities" part of the page, shown in a
// release's section when --cuda-capabilities was given.
const capabilitiesSource = `{{with .CapabilityMatrices}}
<h3>What GPUs of cudaCapabilities {{join $.Coverage.Capabilities ", "}} run</h3>
<ul class="legend caplegend">
<li><span class="sw sass">S</span>SASS: a cubin the GPU runs as is</li>
<li><span class="sw ptx">P</span>PTX: the driver JIT-compiles it for the GPU</li>
<li><span class="sw none">none</span>neither: some library has no code this GPU can run (listed below)</li>
</ul>
<p class="note caplegend">Columns are GPUs (compute capabilities X.Y, as Nixpkgs' <code>cudaCapabilities</code> names them; X.Ya and X.Yf name the GPU X.Y), not compile targets as in the table above; a cell is what the archive's worst library gives that GPU, where the table above counts any library. So a package can hold <b>SP+</b> at sm_90 above and show <b>none</b> at 12.0 here: sm_90 PTX in one library JIT-compiles for 12.0, but another of its libraries has neither. Hover a cell for each library.</p>
<div class="row">
{{range .}}
<div class="capmatrix scroll" id="capmatrix-{{$.Version}}-{{.Platform}}">
<h4>{{.Platform}}</h4>
<table class="cov cap">
<tr><th class="corner">package \ GPU</th>{{range .Capabilities}}<th class="arch">{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Label}}</th>{{range .Cells}}<td id="{{.ID}}" class="{{.Class}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>
{{end}}
</table>
</div>
{{end}}
</div>
{{with $.Coverage.None}}<p>Libraries that get nothing:</p>
<ul class="capgaps" id="capgaps-{{$.Version}}">{{range .}}<li><code>{{.Package}}</code> {{.Platform}} {{.Variant}} <code>{{.Library}}</code>: {{.Capability}} (SASS {{with .SASS}}{{join . " "}}{{else}}none{{end}}; PTX {{with .PTX}}{{join . " "}}{{else}}none{{end}})</li>
{{end}}</ul>{{end}}
{{end}}`

var _ = template.Must(htmlTemplate.New("capabilities").Parse(capabilitiesSource))
