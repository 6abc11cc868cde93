package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// chromium finds Debian's Chromium; scripts/install-deps.sh installs it,
// and scripts/test.sh sets CRFF_REQUIRE_CHROMIUM=1 so CI cannot skip.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Unavailable(t, "chromium not found (scripts/install-deps.sh installs it)", "CRFF_REQUIRE_CHROMIUM")
	return ""
}

// runChromium runs headless Chromium offline on a local page and returns
// stdout and the console messages it logged.
func runChromium(t *testing.T, bin string, args ...string) (string, []string) {
	t.Helper()
	// A hang guard, not a speed bound: a page of this size renders in
	// about a second; a Chromium still running after two minutes hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("chromium %v hung: killed after 120 s (a hang guard): %v\n%s", args, err, stderr.String())
		}
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			console = append(console, line)
		}
	}
	return stdout.String(), console
}

// TestBrowserSeesConsoleErrors is the control: the console scan catches a
// page that throws.
func TestBrowserSeesConsoleErrors(t *testing.T) {
	bin := chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><p>x</p><script>throw new Error("boom")</script>`), 0o644)
	_, console := runChromium(t, bin, "--dump-dom", "file://"+page)
	if len(console) == 0 {
		t.Fatal("the console scan missed an uncaught error: the report checks below would prove nothing")
	}
}

type browserCase struct {
	name string
	dirs []string
	// cells: id → class the browser's DOM must show; nodes: graph labels.
	cells map[string]string
	nodes []string
	// isolated: packages listed as without dependencies in the newest release.
	isolated []string
	// colours the matrix and graph screenshots must contain.
	matrixColours, graphColours []color.RGBA
}

var (
	sassGreen = color.RGBA{0x9f, 0xd4, 0x9f, 0xff}
	ptxTeal   = color.RGBA{0x7f, 0xc7, 0xb7, 0xff}
	topOrange = color.RGBA{0xd3, 0x54, 0x00, 0xff}
	nodeBlue  = color.RGBA{0xdb, 0xe9, 0xf8, 0xff}
	extGrey   = color.RGBA{0xee, 0xee, 0xee, 0xff}
)

func TestReportInBrowser(t *testing.T) {
	bin := chromium(t)
	old, new := handMade(t)
	real := func(v string) string { return filepath.Join("testdata", "real", "cuda", v) }
	cases := []browserCase{
		{name: "sample", dirs: []string{sampleDir("1.0.0"), sampleDir("2.0.0")},
			cells: map[string]string{
				"cov/2.0.0/linux-x86_64/libdemo_variant/cuda12/sm_90": "sass",
				"cov/2.0.0/linux-x86_64/libdemo_variant/cuda12/sm_60": "none",
				"cov/2.0.0/linux-x86_64/libdemo_variant/cuda11/sm_60": "sass",
				"cov/1.0.0/linux-x86_64/cuda_demo_rt/None/sm_90":      "sass ptx top",
				"cov/1.0.0/linux-sbsa/cuda_demo_rt/None/sm_52":        "sass",
			},
			nodes: []string{"libdemo_variant", "libcudart.so.12"}, isolated: []string{"demo_src"},
			matrixColours: []color.RGBA{sassGreen}, graphColours: []color.RGBA{nodeBlue, extGrey}},
		{name: "handmade", dirs: []string{old, new},
			cells: map[string]string{
				"cov/3.0.0/linux-x86_64/libdemo_variant/cuda12/sm_90": "sass ptx top",
				"cov/3.0.0/linux-x86_64/libdemo_variant/cuda12/sm_70": "none",
				"cov/3.0.0/linux-sbsa/libdemo_variant/cuda12/sm_80":   "sass",
			},
			nodes:         []string{"libdemo_variant", "cuda_cudart", "libcudart.so.11"},
			matrixColours: []color.RGBA{sassGreen, ptxTeal, topOrange}, graphColours: []color.RGBA{nodeBlue, extGrey}},
		// Two real bundled manifests, as fixtures (no library records):
		// outputs and changes only; every package is listed as without
		// dependencies, and there is no matrix and no graph to draw.
		{name: "real-cuda", dirs: []string{real("11.8.0"), real("12.2.2")},
			isolated: []string{"cuda_cudart", "libcublas", "libnvjitlink", "cuda_nvcc"}},
	}
	shots := filepath.Join(t.TempDir(), "shots")
	if dir := os.Getenv("CRFF_REPORT_SHOTS"); dir != "" {
		shots = dir // keep them, e.g. for docs/
	}
	os.MkdirAll(shots, 0o755)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Build(readAll(t, tc.dirs...), "")
			if err != nil {
				t.Fatal(err)
			}
			var page bytes.Buffer
			if err := WriteHTML(&page, r); err != nil {
				t.Fatal(err)
			}
			checkSelfContained(t, page.String())
			t.Logf("%s: report.html is %d bytes", tc.name, page.Len())
			dir := t.TempDir()
			file := filepath.Join(dir, "report.html")
			os.WriteFile(file, page.Bytes(), 0o644)

			dom, console := runChromium(t, bin, "--dump-dom", "file://"+file)
			if len(console) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
			}
			if !strings.Contains(dom, "<h1>"+r.Redist+" redistributables") {
				t.Fatalf("the browser's DOM lacks the title:\n%.500s", dom)
			}
			checkDOM(t, dom, tc, r.Releases[len(r.Releases)-1].Version)
			if tc.matrixColours != nil {
				img := screenshot(t, bin, dir, page.String(), "matrix", filepath.Join(shots, tc.name+"-matrix.png"))
				checkColours(t, "matrix", img, tc.matrixColours)
			}
			if tc.graphColours != nil {
				img := screenshot(t, bin, dir, page.String(), "graph", filepath.Join(shots, tc.name+"-graph.png"))
				checkColours(t, "graph", img, tc.graphColours)
			}
		})
	}
}

// checkDOM: the browser's DOM has tc's coverage cells with their
// classes, its graph nodes, and its packages without dependencies
// listed for the last release.
func checkDOM(t *testing.T, dom string, tc browserCase, lastVersion string) {
	t.Helper()
	for id, class := range tc.cells {
		re := regexp.MustCompile(`<td id="` + regexp.QuoteMeta(id) + `" class="([^"]*)"`)
		m := re.FindStringSubmatch(dom)
		if m == nil || m[1] != class {
			t.Errorf("cell %s: %v, want class %q", id, m, class)
		}
	}
	for _, n := range tc.nodes {
		if !regexp.MustCompile(`<g class="node[^"]*" data-name="` + regexp.QuoteMeta(n) + `"><rect [^>]*></rect><text [^>]*>` + regexp.QuoteMeta(n) + `</text>`).MatchString(dom) {
			t.Errorf("graph node %s not in the DOM", n)
		}
	}
	for _, n := range tc.isolated {
		if !regexp.MustCompile(`<p class="isolated" id="isolated-` + regexp.QuoteMeta(lastVersion) + `">[^<]*(<code>[^<]*</code> )*<code>` + regexp.QuoteMeta(n) + `</code>`).MatchString(dom) {
			t.Errorf("%s not listed as without dependencies", n)
		}
	}
}

// checkSelfContained refuses anything that would load at view time.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<script", " src=", "<link", "@import", "url(http", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q: not self-contained", bad)
		}
	}
}

// screenshot renders the page with only one part shown (an injected
// stylesheet hides the rest; "" keeps the whole page) and decodes the PNG.
func screenshot(t *testing.T, bin, dir, page, only, dest string) image.Image {
	t.Helper()
	hide := map[string]string{
		"matrix": "body>h1,body>p,#changes,details>h3,.outputs,.legend,.graph,details>p{display:none}",
		"graph":  "body>h1,body>p,#changes,details>h3,.outputs,.legend,.matrix,details>p{display:none}",
	}[only]
	file := filepath.Join(dir, "shot-"+only+".html")
	os.WriteFile(file, []byte(strings.Replace(page, "</style>", hide+"</style>", 1)), 0o644)
	runChromium(t, bin, "--window-size=1000,800", "--screenshot="+dest, "file://"+file)
	f, err := os.Open(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", dest, err)
	}
	return img
}

// checkColours asserts the screenshot is not blank and shows each colour
// (cells, outlines, node boxes) on at least a few pixels.
func checkColours(t *testing.T, what string, img image.Image, want []color.RGBA) {
	t.Helper()
	counts := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}]++
		}
	}
	if len(counts) < 3 {
		t.Errorf("%s screenshot is blank (%d colours)", what, len(counts))
	}
	for _, c := range want {
		if counts[c] < 20 {
			t.Errorf("%s screenshot: colour %s on %d pixels, want at least 20", what, hex(c), counts[c])
		}
	}
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
