package report

// htmlSource is the page's html/template. It is Go source, not an
// embedded file, so nix/source.nix's filter (Go files only) keeps it.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}} — CUDA redistributable report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin-bottom:.3em}
table{border-collapse:collapse;margin:.3em 0 1em}
th,td{border:1px solid #ccc;padding:2px 5px;vertical-align:top;text-align:left}
th{background:#f3f3f3}
code,.mono{font-family:ui-monospace,monospace;font-size:12px}
.var{color:#666}
table.cov td{text-align:center;min-width:2.2em;font-family:ui-monospace,monospace;font-size:12px;padding:1px 2px}
table.cov th.arch{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;font-size:12px;padding:3px 1px}
td.sass{background:#9fd49f}td.ptx{background:#9fc3ea}td.sass.ptx{background:#7fc7b7}
td.top{outline:2px solid #d35400;outline-offset:-2px;font-weight:bold}
table.cov th.smgroup{text-align:center;font-weight:normal;font-size:12px}
table.cov th.sub{writing-mode:horizontal-tb;transform:none;text-align:center}
table.cov .fam{border-left:2px dashed #b8860b}table.cov th.fam{background:#fdf2c9}
table.cov .spec{border-left:2px solid #8e44ad}table.cov th.spec{background:#ead7f3}
table.cov td.none.fam{background:#fdfaf0}table.cov td.none.spec{background:#f8f2fb}
.legend span{display:inline-block;padding:0 .5em;margin-right:.5em;border:1px solid #ccc}
.added{color:#1a7f37}.removed{color:#c0392b}
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
<table id="archive-changes">
<tr><th>package</th><th>platform</th><th>variant</th><th>outputs</th><th>SASS</th><th>PTX</th><th>sonames</th><th>note</th></tr>
{{range .Archives}}<tr>
<td>{{.Package}}</td><td>{{.Platform}}</td><td>{{.Variant}}</td>
<td>{{range .OutputsGained}}<span class="added">+{{.}}</span> {{end}}{{range .OutputsLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{range .SASSGained}}<span class="added">+{{.}}</span> {{end}}{{range .SASSLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{range .PTXGained}}<span class="added">+{{.}}</span> {{end}}{{range .PTXLost}}<span class="removed">-{{.}}</span> {{end}}</td>
<td class="mono">{{range .SonamesAdded}}<span class="added">+{{.}}</span> {{end}}{{range .SonamesRemoved}}<span class="removed">-{{.}}</span> {{end}}</td>
<td>{{if .Added}}<span class="added">new archive</span>{{end}}{{if .Removed}}<span class="removed">archive removed</span>{{end}}{{if .NarHashChanged}}<span class="removed">narHash changed, same version {{.Version}}</span>{{end}}</td>
</tr>{{end}}
</table>
{{end}}
</section>
{{end}}
{{range .Sections}}
<details id="release-{{.Version}}"{{if .Open}} open{{end}}>
<summary>Release {{.Version}}</summary>
<h3>Outputs</h3>
<table class="outputs">
<tr><th>package</th><th>version</th>{{range .Outputs.Platforms}}<th>{{.}}</th>{{end}}</tr>
{{range .Outputs.Rows}}<tr><td>{{.Package}}</td><td>{{.Version}}</td>{{range .Cells}}<td>{{range .}}<div>{{with .Variant}}<span class="var">{{.}}:</span> {{end}}{{join .Outputs " "}}</div>{{end}}</td>{{end}}</tr>
{{end}}
</table>
<h3>GPU coverage</h3>
<p class="legend"><span style="background:#9fd49f">S</span>SASS (runs as is) <span style="background:#9fc3ea">P</span>PTX (JIT-compiled) <span style="background:#7fc7b7">SP</span>both <span style="outline:2px solid #d35400">+</span>newest PTX: what lets newer GPUs JIT<br>
Columns: <span>sm</span>generic target sm_XY: SASS runs on X.Y and later X.x GPUs, PTX on every later GPU <span style="background:#fdf2c9;border-left:2px dashed #b8860b">f</span>family-specific sm_XYf: only the GPUs of its family (sm_100f: 10.0, 10.3; sm_120f: 12.0, 12.1) <span style="background:#ead7f3;border-left:2px solid #8e44ad">a</span>architecture-specific sm_XYa: only X.Y. Hover a header for its GPUs.</p>
{{$v := .Version}}
{{range .Matrices}}
<div class="matrix" id="matrix-{{$v}}-{{.Platform}}">
<h3>{{.Platform}}</h3>
<table class="cov">
{{if .Groups}}<tr><th rowspan="2">package</th>{{range .Groups}}<th class="smgroup" colspan="{{.Span}}">{{.Name}}</th>{{end}}</tr>
<tr>{{range .Heads}}<th class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Label}}</th>{{end}}</tr>
{{else}}<tr><th>package</th>{{range .Heads}}<th class="{{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Label}}</th>{{end}}</tr>
{{end}}
{{range .Rows}}<tr><th>{{.Label}}</th>{{range .Cells}}<td id="{{.ID}}" class="{{.Class}}" data-arch="{{.Arch}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}
</table>
</div>
{{else}}<p>No GPU code in this release.</p>
{{end}}
{{template "capabilities" .}}
<h3>Soname dependencies</h3>
<p>An arrow from A to B: A needs a soname B provides (grey: provided by no package of this release). System libraries (libc, libm, libdl, libpthread, librt, libstdc++, libgcc_s, ld-linux, libcuda.so.1) are left out.</p>
{{if .Layout.Boxes}}<div class="graph" id="graph-{{.Version}}">
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Layout.Width}}" height="{{.Layout.Height}}" viewBox="0 0 {{.Layout.Width}} {{.Layout.Height}}" role="img" aria-label="soname dependency graph of {{.Version}}">
<defs><marker id="arrow-{{.Version}}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>
{{$id := .Version}}
{{range .Layout.Lines}}<line class="edge" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}" stroke="#555" marker-end="url(#arrow-{{$id}})"><title>{{.From}} needs {{join .Sonames ", "}} from {{.To}}</title></line>
{{end}}
{{range .Layout.Boxes}}<g class="node{{if .External}} external{{end}}" data-name="{{.Name}}"><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="4" fill="{{if .External}}#eee{{else}}#dbe9f8{{end}}" stroke="{{if .External}}#999{{else}}#2c6eb5{{end}}"/><text x="{{.X}}" y="{{.Y}}" dx="8" dy="15">{{.Name}}</text></g>
{{end}}
</svg>
</div>{{else}}<p>No soname dependencies between packages.</p>{{end}}
{{with .Isolated}}<p class="isolated" id="isolated-{{$v}}">Without dependencies either way: {{range .}}<code>{{.}}</code> {{end}}</p>{{end}}
{{with .Vendored}}<h3>Vendored libraries</h3>
<p>Third-party libraries inside the archives that a free distribution ships (docs/vendored.md): candidates for removal in favour of Nixpkgs' own.</p>
<table class="vendored" id="vendored-{{$v}}">
<tr><th>package</th><th>platform</th><th>variant</th><th>library</th><th>upstream</th><th>in a free distribution</th></tr>
{{range .}}{{$r := .}}{{range .Libs}}<tr><td>{{$r.Package}}</td><td>{{$r.Platform}}</td><td>{{$r.Variant}}</td><td><code>{{.Path}}</code></td><td>{{.Upstream}}</td><td>{{.Provider}}</td></tr>
{{end}}{{end}}</table>
{{end}}
</details>
{{end}}
</body>
</html>
`
