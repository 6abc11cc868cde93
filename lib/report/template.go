package report

// htmlSource is the page's html/template. It is Go source, not an
// embedded file, so nix/source.nix's filter (Go files only) keeps it.
//
// A release's section is a list of parts, each its own named template
// taking the htmlRelease: "outputs", "coverage", "capabilities" (in
// capabilities.go), "graph". A new part is one more template and one
// more line in the "release" template.
//
// The page fills the width it gets: the per-platform tables sit side by
// side (flex-wrap) and wrap under each other on a narrow window, wide
// tables scroll in their own box (.scroll), long lists flow in columns.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} — CUDA redistributable report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:1.2em 0 .3em}h4{margin:.5em 0 .2em}
p.note{margin:.2em 0 .5em;max-width:75em;color:#444}
table{border-collapse:collapse;margin:.3em 0 1em}
th,td{border:1px solid #ccc;padding:2px 5px;vertical-align:top;text-align:left}
th{background:#f3f3f3}
code,.mono{font-family:ui-monospace,monospace;font-size:12px}
.var{color:#666}.notbuilt{color:#999}
.legacy,tr.legacy td{color:#777;font-style:italic}.legacy .var,tr.legacy .var{font-style:normal}
.tag{font-size:11px;font-style:normal;border:1px solid #bbb;border-radius:3px;padding:0 3px;margin-right:4px;color:#555;background:#f6f6f6}
table.outputs td:nth-child(3){max-width:26em}@media (min-width:1000px){table.outputs td div{white-space:nowrap}}
.row{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}
.scroll{overflow-x:auto;max-width:100%}
table.cov td{text-align:center;min-width:2.4em;font-family:ui-monospace,monospace;font-size:12px;padding:1px 3px}
table.cov th.arch,table.cov th.smgroup{font-weight:normal;font-family:ui-monospace,monospace;font-size:11px;text-align:center;white-space:nowrap;padding:2px 3px}
table.cov th.corner{vertical-align:bottom;font-weight:normal;color:#555}
td.sass,.sw.sass{background:#9fd49f}td.ptx,.sw.ptx{background:#9fc3ea}td.sass.ptx,.sw.sass.ptx{background:#7fc7b7}
td.top,.sw.top{outline:2px solid #d35400;outline-offset:-2px;font-weight:bold}
table.cap td.none,.sw.none{background:#f2a7a7}
table.cov .fam{border-left:2px dashed #b8860b}table.cov th.fam,.sw.fam{background:#fdf2c9}
table.cov .spec{border-left:2px solid #8e44ad}table.cov th.spec,.sw.spec{background:#ead7f3}
table.cov td.none.fam{background:#fdfaf0}table.cov td.none.spec{background:#f8f2fb}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1.5em;margin:.3em 0 .6em;padding:0;list-style:none}
.legend li{display:flex;align-items:baseline;gap:.4em;max-width:29em}
.sw{display:inline-block;flex:none;min-width:1.6em;text-align:center;border:1px solid #ccc;font-family:ui-monospace,monospace;font-size:12px}
.sw.fam{border-left:2px dashed #b8860b}.sw.spec{border-left:2px solid #8e44ad}
ul.capgaps{column-width:36em;column-gap:2em;margin-top:.2em}
.added{color:#1a7f37}.removed{color:#c0392b}#archive-changes td:not(:last-child) span{white-space:nowrap}
svg text{font-family:ui-monospace,monospace;font-size:12px}
details>summary{cursor:pointer;font-weight:bold;font-size:1.2em}
</style>
</head>
<body>
<h1>{{.Redist}} redistributables: {{join .Versions ", "}}</h1>
<p>Built from the aggregate directories of <code>cuda-redist-find-features</code>: outputs, GPU coverage and soname dependencies per package, and what changed.</p>
{{with .Changes}}
<section id="changes">
<h2>Changes from {{.Old}} to {{.New}}</h2>
{{if .Empty}}<p>No changes in packages, outputs, architectures, sonames or NAR hashes.</p>{{end}}
{{if .PackagesAdded}}<p>Packages added: {{range .PackagesAdded}}<code class="added">+{{.}}</code> {{end}}</p>{{end}}
{{if .PackagesRemoved}}<p>Packages removed: {{range .PackagesRemoved}}<code class="removed">-{{.}}</code> {{end}}</p>{{end}}
{{if .Archives}}
<div class="scroll"><table id="archive-changes">
<tr><th>package</th><th>platform</th><th>variant</th><th>buildRedist outputs</th><th>SASS</th><th>PTX</th><th>sonames</th><th>note</th></tr>
{{range .Archives}}<tr>
<td>{{.Package}}</td><td>{{.Platform}}</td><td>{{.Variant}}</td>
<td>{{range .OutputsGained}}<span class="added">+{{.}}</span> {{end}}{{range .OutputsLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{range .SASSGained}}<span class="added">+{{.}}</span> {{end}}{{range .SASSLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{range .PTXGained}}<span class="added">+{{.}}</span> {{end}}{{range .PTXLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td class="mono">{{range .SonamesAdded}}<span class="added">+{{.}}</span> {{end}}{{range .SonamesRemoved}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{if .Added}}<span class="added">new archive</span>{{end}}{{if .Removed}}<span class="removed">archive removed</span>{{end}}{{if .NarHashChanged}}<span class="removed">narHash changed, same version {{.Version}}</span>{{end}}{{range .LoadsAdded}} <span class="added">loads +{{.}}</span>{{end}}{{range .LoadsRemoved}} <span class="removed">loads -{{.}}</span>{{end}}</td>
</tr>{{end}}
</table></div>
{{end}}
{{with .Lineage}}
<h3 id="lineage">Package lineage</h3>
<ul>
{{range .Renamed}}<li>renamed <code class="removed">{{.From}}</code> → <code class="added">{{.To}}</code> ({{.Name}}, {{.OldVersion}} → {{.NewVersion}}); evidence: {{join .Evidence "; "}}</li>
{{end}}{{range .Dropped}}<li>dropped <code class="removed">{{.Package}}</code> ({{.Name}}): last release {{.LastRelease}}, version {{.LastVersion}}{{range .MovedTo}}; moved to redist {{.Redist}} ({{.Package}} {{.Version}}; {{.Evidence}}){{end}}</li>
{{end}}{{range .Added}}<li>new <code class="added">{{.Package}}</code> ({{.Name}}, {{.Version}}; licence “{{.License}}”){{range .From}}; from redist {{.Redist}} ({{.Package}} {{.Version}}; {{.Evidence}}){{end}}</li>
{{end}}{{range .Moves}}<li>{{.Kind}} <code>{{.From}}</code> → <code>{{.To}}</code>: {{len .Files}} files{{if .Sonames}}, sonames {{join .Sonames " "}}{{end}}; evidence: {{join .Evidence "; "}}
<details><summary>files</summary><ul class="mono">{{range .Files}}<li>{{.Old}}{{if ne .Old .New}} → {{.New}} (by {{.By}}){{end}}</li>{{end}}</ul></details></li>
{{end}}{{range .LicenceChanges}}<li>licence of <code>{{.Package}}</code>{{if ne .From .Package}} (was <code>{{.From}}</code>){{end}}: “{{.Old}}” ({{or .OldAttr "unknown to the licence table"}}) → “{{.New}}” ({{or .NewAttr "unknown to the licence table"}})</li>
{{end}}</ul>
{{end}}
</section>
{{end}}
{{range .Sections}}{{template "release" .}}{{end}}
</body>
</html>
{{- define "release"}}
<details id="release-{{.Version}}"{{if .Open}} open{{end}}>
<summary>Release {{.Version}}</summary>
{{template "outputs" .}}
{{template "coverage" .}}
{{template "capabilities" .}}
{{template "graph" .}}
{{template "vendored" .}}
{{template "loads" .}}
{{template "licences" .}}
</details>
{{end}}
{{- define "licences"}}
<h3>Licences</h3>
<p class="note">Each licence string of the manifest and the Nixpkgs attribute it maps to (the table of <code>docs/licences.md</code>); then the packages grouped by the text of their archive's licence file.</p>
<table class="licences">
<tr><th>licence</th><th>Nixpkgs attribute</th><th>packages</th></tr>
{{range .Licences}}<tr><td>{{.License}}</td><td>{{if .Attr}}<code>{{.Attr}}</code>{{else}}unknown to the table{{end}}</td><td>{{join .Packages " "}}</td></tr>
{{end}}</table>
{{if .LicenceTexts}}<table class="licence-texts">
<tr><th>text (sha256)</th><th>first line</th><th>packages</th></tr>
{{range .LicenceTexts}}<tr><td class="mono">{{slice .SHA256 0 12}}</td><td>{{.FirstLine}}</td><td>{{join .Packages " "}}</td></tr>
{{end}}</table>{{end}}
{{end}}
{{- define "outputs"}}
<h3>Outputs</h3>
<p class="note">What each package's <code>buildRedist</code> call declares, as <code>print-buildredist</code> prints it and <code>check-nixpkgs --fix</code> writes it: <code>outputs =</code> the expression, then per platform the list each archive needs. <span class="notbuilt">—</span>: a Windows archive, which <code>buildRedist</code> does not build.{{if .Outputs.Legacy}} <span class="legacy"><span class="tag">legacy</span> the outputs of <code>feature_&lt;version&gt;.json</code> (upstream's format, with <code>dev</code>), shown where the aggregate has no <code>buildRedist</code> facts (a row marked so in the <code>outputs =</code> column is legacy throughout): not a list to declare.</span>{{end}}</p>
<div class="scroll"><table class="outputs">
<tr><th>package</th><th>version</th><th>outputs =</th>{{range .Outputs.Platforms}}<th>{{.}}</th>{{end}}</tr>
{{range .Outputs.Rows}}<tr{{if .Legacy}} class="legacy"{{end}}><td>{{.Package}}</td><td>{{.Version}}</td><td>{{if .Declare}}<code>{{.Declare}};</code>{{else if .Legacy}}<span class="tag">legacy</span>{{else}}—{{end}}{{range .Settings}}<div><code>{{.}}</code></div>{{end}}</td>{{range .Cells}}<td>{{range .}}{{if .NotBuilt}}<span class="notbuilt">—</span>{{else}}<div{{if .Legacy}} class="legacy"{{end}}>{{if .Legacy}}<span class="tag">legacy</span>{{end}}{{with .Variant}}<span class="var">{{.}}:</span> {{end}}{{join .Outputs " "}}</div>{{end}}{{end}}</td>{{end}}</tr>
{{end}}
</table></div>
{{end}}
{{- define "coverage"}}
<h3>GPU code per target</h3>
<ul class="legend" id="legend-{{.Version}}">
<li><span class="sw sass">S</span>SASS: a cubin, run as is</li>
<li><span class="sw ptx">P</span>PTX: the driver JIT-compiles it</li>
<li><span class="sw sass ptx">SP</span>both</li>
<li><span class="sw top">+</span>the newest PTX: what GPUs newer than every SASS target JIT from</li>
</ul>
<ul class="legend">
<li><span class="sw">sm</span>sm_XY, generic: SASS runs on X.Y and later X.x GPUs, PTX on every later GPU</li>
<li><span class="sw fam">f</span>sm_XYf, family-specific: the GPUs of its family only (sm_100f: 10.0, 10.3; sm_120f: 12.0, 12.1)</li>
<li><span class="sw spec">a</span>sm_XYa, architecture-specific: X.Y only</li>
</ul>
<p class="note">Columns are compile targets (sm_XY, as <code>cuobjdump</code> lists them); a cell is what the archive's libraries hold together: one library with the target is enough. Hover a header for its GPUs, a cell for its kinds.</p>
{{$v := .Version}}
<div class="row">
{{range .Matrices}}
<div class="matrix scroll" id="matrix-{{$v}}-{{.Platform}}">
<h4>{{.Platform}}</h4>
<table class="cov">
{{if .Groups}}<tr><th rowspan="2" class="corner">package \ target</th>{{range .Groups}}<th class="smgroup" colspan="{{.Span}}">{{.Name}}</th>{{end}}</tr>
<tr>{{range .Heads}}<th class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Label}}</th>{{end}}</tr>
{{else}}<tr><th class="corner">package \ target</th>{{range .Heads}}<th class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Label}}</th>{{end}}</tr>
{{end}}
{{range .Rows}}<tr><th>{{.Label}}</th>{{range .Cells}}<td id="{{.ID}}" class="{{.Class}}" data-arch="{{.Arch}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}
</table>
</div>
{{else}}<p>No GPU code in this release.</p>
{{end}}
</div>
{{end}}
{{- define "graph"}}
<h3>Soname dependencies</h3>
<p class="note">Read left to right: an arrow from A to B says A needs a soname B provides, so packages that others need stand to the right of them (grey: a soname no package of this release provides). System libraries (libc, libm, libdl, libpthread, librt, libstdc++, libgcc_s, ld-linux, libcuda.so.1) are left out.</p>
{{if .Layout.Boxes}}<div class="graph scroll" id="graph-{{.Version}}">
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Layout.Width}}" height="{{.Layout.Height}}" viewBox="0 0 {{.Layout.Width}} {{.Layout.Height}}" role="img" aria-label="soname dependency graph of {{.Version}}">
<defs><marker id="arrow-{{.Version}}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>
{{$id := .Version}}
{{range .Layout.Lines}}<line class="edge" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}" stroke="#555" marker-end="url(#arrow-{{$id}})"><title>{{.From}} needs {{join .Sonames ", "}} from {{.To}}</title></line>
{{end}}
{{range .Layout.Boxes}}<g class="node{{if .External}} external{{end}}" data-name="{{.Name}}"><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="4" fill="{{if .External}}#eee{{else}}#dbe9f8{{end}}" stroke="{{if .External}}#999{{else}}#2c6eb5{{end}}"/><text x="{{.X}}" y="{{.Y}}" dx="8" dy="15">{{.Name}}</text></g>
{{end}}
</svg>
</div>{{else}}<p>No soname dependencies between packages.</p>{{end}}
{{with .Isolated}}<p class="isolated" id="isolated-{{$.Version}}">Without dependencies either way: {{range .}}<code>{{.}}</code> {{end}}</p>{{end}}
{{end -}}
{{- define "loads"}}
{{with .Loads}}<h3>Run-time loads</h3>
<p class="note">What the archives' libraries load with dlopen (a name in the binary, no DT_NEEDED) and what provides it (docs/runtime-dependencies.md): another package's or a free library's directory belongs in the package file's appendRunpaths; the driver's and the package's own are reachable already.</p>
<div class="scroll"><table class="loads" id="loads-{{$.Version}}">
<tr><th>package</th><th>platform</th><th>variant</th><th>loads → provider</th></tr>
{{range .}}<tr><td>{{.Package}}</td><td>{{.Platform}}</td><td>{{.Variant}}</td><td>{{range $i, $l := .Items}}{{if $i}}<br>{{end}}<code>{{$l}}</code>{{end}}</td></tr>
{{end}}</table></div>
{{end}}
{{- end}}
{{- define "vendored"}}
{{with .Vendored}}<h3>Vendored libraries</h3>
<p class="note">Third-party libraries inside the archives that a free distribution ships (docs/vendored.md): candidates for removal in favour of Nixpkgs' own.</p>
<div class="scroll"><table class="vendored" id="vendored-{{$.Version}}">
<tr><th>package</th><th>platform</th><th>variant</th><th>library</th><th>upstream</th><th>in a free distribution</th></tr>
{{range .}}{{$r := .}}{{range .Items}}<tr><td>{{$r.Package}}</td><td>{{$r.Platform}}</td><td>{{$r.Variant}}</td><td><code>{{.Path}}</code></td><td>{{.Upstream}}</td><td>{{.Provider}}</td></tr>
{{end}}{{end}}</table></div>
{{end}}
{{- end}}
`
