package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// layoutProbe is a script added to a copy of the page (the report itself
// has none): once laid out, it logs the page's scroll width, the widest
// box (a table or the graph) that sticks out of the window, and whether
// the open release's first two platform matrices share a row.
const layoutProbe = `<script>addEventListener("load", () => {
const open = document.querySelectorAll("details[open] .matrix");
let out = 0;
for (const e of document.querySelectorAll("details[open] table, details[open] svg, #changes table")) {
  const r = e.getBoundingClientRect(), box = e.closest(".scroll");
  const right = box ? box.getBoundingClientRect().right : r.right;
  if (right > out) out = Math.ceil(right);
}
console.log("probe scrollWidth=" + document.documentElement.scrollWidth + " rightmost=" + out +
  " sideBySide=" + (open.length > 1 && open[0].offsetTop === open[1].offsetTop));
});</script>`

// TestReportFitsThePage lays the hand-made releases' report (with a
// capability table) out in Chromium at 1400 and 800 px: nothing sticks
// out of the window (wide tables scroll in their own box), and on the
// wide window the per-platform matrices stand side by side rather than
// leaving most of the page empty. CRFF_REPORT_SHOTS=DIR keeps the
// screenshots (docs/report.png, docs/report-800.png).
func TestReportFitsThePage(t *testing.T) {
	bin := chromium(t)
	old, new := handMade(t)
	aggs := readAll(t, old, new)
	r, err := Build(aggs, "")
	if err != nil {
		t.Fatal(err)
	}
	caps, err := coverage.ParseList("7.5,9.0a,12.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddCoverage(aggs, caps); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	probed := filepath.Join(dir, "probed.html")
	os.WriteFile(probed, []byte(strings.Replace(page.String(), "</body>", layoutProbe+"</body>", 1)), 0o644)
	shots := os.Getenv("CRFF_REPORT_SHOTS")
	for _, tc := range []struct {
		width, shotHeight int
		sideBySide        bool
		shot              string
	}{{1400, 1650, true, "report.png"}, {800, 2200, false, "report-800.png"}} {
		_, console := runChromium(t, bin, "--window-size="+strconv.Itoa(tc.width)+",1000", "--dump-dom", "file://"+probed)
		var m []string
		for _, line := range console {
			if m = regexp.MustCompile(`probe scrollWidth=(\d+) rightmost=(\d+) sideBySide=(\w+)`).FindStringSubmatch(line); m != nil {
				break
			}
		}
		if m == nil {
			t.Fatalf("%d px: the probe logged nothing: %v", tc.width, console)
		}
		scroll, _ := strconv.Atoi(m[1])
		right, _ := strconv.Atoi(m[2])
		if scroll > tc.width || right > tc.width {
			t.Errorf("%d px: the page is %d px wide, its rightmost table ends at %d px: it does not fit", tc.width, scroll, right)
		}
		if tc.sideBySide && m[3] != "true" {
			t.Errorf("%d px: the platform matrices are not side by side", tc.width)
		}
		t.Logf("%d px: scroll width %d, rightmost box %d, matrices side by side %s", tc.width, scroll, right, m[3])
		if shots != "" {
			file := filepath.Join(dir, "report.html")
			os.WriteFile(file, page.Bytes(), 0o644)
			runChromium(t, bin, "--window-size="+strconv.Itoa(tc.width)+","+strconv.Itoa(tc.shotHeight), "--screenshot="+filepath.Join(shots, tc.shot), "file://"+file)
		}
	}
}

// targetsRelease is a hand-assembled CUDA 13 release with every target
// kind: libcublas's and libcufft's targets and an nvcc 13 build of
// generic, family and specific ones (docs/compatibility.md's picture).
func targetsRelease() *Report {
	arc := func(sass, ptx []string) Archive {
		a := Archive{Platform: "linux-x86_64", SASS: sortArchs(sass), PTX: sortArchs(ptx), Outputs: []string{"out", "lib"}}
		a.TopPTX = topPTX(a.PTX)
		return a
	}
	pkgs := []Package{
		{Name: "libcublas", Version: "13.0.0", Archives: []Archive{arc(
			[]string{"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_120", "sm_120f", "sm_121"},
			[]string{"sm_75", "sm_120"})}},
		{Name: "libcufft", Version: "12.0.0", Archives: []Archive{arc(
			[]string{"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_110", "sm_120"}, nil)}},
		{Name: "nvcc-built demo", Version: "13.0.0", Archives: []Archive{arc(
			[]string{"sm_75", "sm_90a", "sm_100f", "sm_103f", "sm_110f", "sm_120f", "sm_121a"}, []string{"sm_120f"})}},
	}
	archs := map[string]bool{}
	for _, p := range pkgs {
		for _, s := range append(append([]string{}, p.Archives[0].SASS...), p.Archives[0].PTX...) {
			archs[s] = true
		}
	}
	rel := Release{Version: "13.0.0", Platforms: []string{"linux-x86_64"}, Architectures: sortArchs(sortedKeys(archs)), Packages: pkgs}
	rel.Graph = buildGraph(pkgs)
	var facts []aggregate.ArchiveFacts
	for _, p := range pkgs {
		facts = append(facts, aggregate.ArchiveFacts{Archive: manifest.Archive{Package: p.Name, Platform: "linux-x86_64"}, Facts: features.BuildRedistFacts{Outputs: p.Archives[0].Outputs}})
	}
	rel.BuildRedist = aggregate.Declarations(facts)
	return &Report{Redist: "cuda", Releases: []Release{rel}}
}

// TestWideMatrixFits: a matrix of every target kind (20 columns) fits
// the wide window and, on the narrow one, scrolls in its own box rather
// than widening the page. CRFF_REPORT_SHOTS=DIR keeps the wide
// screenshot (docs/report-targets.png).
func TestWideMatrixFits(t *testing.T) {
	bin := chromium(t)
	var page bytes.Buffer
	if err := WriteHTML(&page, targetsRelease()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	probed := filepath.Join(dir, "probed.html")
	os.WriteFile(probed, []byte(strings.Replace(page.String(), "</body>", layoutProbe+"</body>", 1)), 0o644)
	for _, width := range []int{1400, 800} {
		_, console := runChromium(t, bin, "--window-size="+strconv.Itoa(width)+",800", "--dump-dom", "file://"+probed)
		var m []string
		for _, line := range console {
			if m = regexp.MustCompile(`probe scrollWidth=(\d+) rightmost=(\d+)`).FindStringSubmatch(line); m != nil {
				break
			}
		}
		if m == nil {
			t.Fatalf("%d px: the probe logged nothing: %v", width, console)
		}
		if scroll, _ := strconv.Atoi(m[1]); scroll > width {
			t.Errorf("%d px: the page is %d px wide", width, scroll)
		}
	}
	if shots := os.Getenv("CRFF_REPORT_SHOTS"); shots != "" {
		file := filepath.Join(dir, "report.html")
		os.WriteFile(file, page.Bytes(), 0o644)
		runChromium(t, bin, "--window-size=1400,720", "--screenshot="+filepath.Join(shots, "report-targets.png"), "file://"+file)
	}
}
