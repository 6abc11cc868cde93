package report

import (
	"bytes"
	"encoding/json"
	"html"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/coverage"
)

// sampleWithCapabilities is the sample's report with cudaCapabilities
// 7.5 and 9.0a. The sample's cubins: cuda_demo_rt sm_52, sm_80, sm_90 (and
// PTX sm_90, which serves 9.0 and later only); libdemo_versioned lib/11
// sm_60, sm_70 and lib/12 sm_70, sm_80, sm_90; libdemo_variant cuda11
// sm_60, sm_70, cuda12 sm_70, sm_80, sm_90 on x86_64 and sm_80, sm_90 on
// sbsa.
func sampleWithCapabilities(t *testing.T) *Report {
	t.Helper()
	aggs := readAll(t, sampleDir("1.0.0"), sampleDir("2.0.0"))
	r, err := Build(aggs, "")
	if err != nil {
		t.Fatal(err)
	}
	caps, err := coverage.ParseList("7.5,9.0a")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddCoverage(aggs, caps); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCapabilityMatrices: per release and platform, one row per archive
// with device code, the worst library's support per capability.
func TestCapabilityMatrices(t *testing.T) {
	r := sampleWithCapabilities(t)
	got := map[string][]string{}
	for _, rel := range r.Releases {
		for _, m := range rel.CapabilityMatrices() {
			for _, row := range m.Rows {
				var cells []string
				for _, c := range row.Cells {
					cells = append(cells, c.Class+"="+c.Text)
				}
				got[rel.Version+" "+m.Platform] = append(got[rel.Version+" "+m.Platform], row.Label+": "+strings.Join(cells, " "))
			}
		}
	}
	want := map[string][]string{
		"1.0.0 linux-sbsa":   {"cuda_demo_rt: none=none sass=S"},
		"1.0.0 linux-x86_64": {"cuda_demo_rt: none=none sass=S", "libdemo_versioned: sass=S none=none"},
		"2.0.0 linux-sbsa":   {"libdemo_variant (cuda12): none=none sass=S"},
		"2.0.0 linux-x86_64": {"libdemo_variant (cuda11): sass=S none=none", "libdemo_variant (cuda12): sass=S sass=S"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capability tables (-want +got):\n%s", diff)
	}
	// The cell's title says what each library gets.
	m := r.Releases[0].CapabilityMatrices()[1]
	if title := m.Rows[1].Cells[1].Title; !strings.Contains(title, "lib/11/libdemo_v.so: none\n") || !strings.Contains(title, "lib/12/libdemo_v.so: sass sm_90") {
		t.Errorf("libdemo_versioned 9.0a title %q", title)
	}
	// Without capabilities: no table, and report.json as before.
	plain, err := Build(readAll(t, sampleDir("1.0.0")), "")
	if err != nil || plain.Releases[0].CapabilityMatrices() != nil {
		t.Errorf("no capabilities asked: %v %v", plain.Releases[0].CapabilityMatrices(), err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || !reflect.DeepEqual(&back, r) {
		t.Errorf("report.json with coverage does not read back as the model: %v", err)
	}
	if err := r.AddCoverage(readAll(t, sampleDir("1.0.0")), []coverage.Capability{{Name: "9.0"}}); err == nil || !strings.Contains(err.Error(), "no aggregate of release 2.0.0") {
		t.Errorf("a release without its aggregate: %v", err)
	}
}

// TestCapabilitiesInBrowser: Chromium's DOM has the cells with their
// classes and the list of libraries that get nothing, and the tables
// render in green (SASS) and red (none).
func TestCapabilitiesInBrowser(t *testing.T) {
	bin := chromium(t)
	r := sampleWithCapabilities(t)
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, page.String())
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := runChromium(t, bin, "--dump-dom", "file://"+file)
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	for id, class := range map[string]string{
		"cap/2.0.0/linux-x86_64/libdemo_variant/cuda11/9.0a": "none",
		"cap/2.0.0/linux-x86_64/libdemo_variant/cuda12/7.5":  "sass",
		"cap/1.0.0/linux-sbsa/cuda_demo_rt/None/7.5":         "none",
		"cap/1.0.0/linux-x86_64/libdemo_versioned/None/7.5":  "sass",
	} {
		m := regexp.MustCompile(`<td id="` + regexp.QuoteMeta(id) + `" class="([^"]*)"`).FindStringSubmatch(dom)
		if m == nil || m[1] != class {
			t.Errorf("cell %s: %v, want class %q", id, m, class)
		}
	}
	if !strings.Contains(dom, `<li><code>libdemo_versioned</code> linux-x86_64 None <code>lib/11/libdemo_v.so</code>: 9.0a (SASS sm_60 sm_70; PTX none)</li>`) {
		t.Errorf("the DOM lacks libdemo_versioned's lib/11 in the list of libraries that get nothing")
	}
	// Only the capability tables shown: green and red cells.
	only := strings.Replace(page.String(), "</style>", "body>h1,body>p,#changes,details>h3,.outputs,.legend,.matrix,.graph,.caplegend,.capgaps,details>p{display:none}</style>", 1)
	img := screenshot(t, bin, dir, only, "", filepath.Join(t.TempDir(), "capabilities.png"))
	checkColours(t, "capabilities", img, []color.RGBA{sassGreen, {0xf2, 0xa7, 0xa7, 0xff}})
}

// TestOneVocabulary: the per-target matrix and the per-GPU capability
// table speak one vocabulary: every cell of either shows a mark its
// legend's swatch shows (S, P, SP, none, and the + of the newest PTX),
// coloured by the same class; each table says what its columns are and
// which libraries a cell counts, so SP+ at sm_90 beside none at 12.0
// reads as two questions, not a contradiction.
func TestOneVocabulary(t *testing.T) {
	r := sampleWithCapabilities(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	swatches := map[string]string{} // mark → classes
	for _, m := range regexp.MustCompile(`<span class="sw ([^"]*)">([^<]*)</span>`).FindAllStringSubmatch(page, -1) {
		swatches[html.UnescapeString(m[2])] = m[1]
	}
	for mark, class := range map[string]string{"S": "sass", "P": "ptx", "SP": "sass ptx", "+": "top", "none": "none"} {
		if swatches[mark] != class {
			t.Errorf("legend swatch %q: class %q, want %q", mark, swatches[mark], class)
		}
	}
	cells := regexp.MustCompile(`<td id="(cov|cap)/[^"]*" class="([^"]*)"[^>]*>([^<]*)</td>`).FindAllStringSubmatch(page, -1)
	seen := map[string]bool{}
	for _, c := range cells {
		table, classes, text := c[1], strings.Fields(c[2]), html.UnescapeString(c[3])
		seen[table] = true
		mark := strings.TrimSuffix(text, "+")
		if mark == "" && table == "cov" {
			continue // a target no library has
		}
		want, ok := swatches[mark]
		if !ok {
			t.Errorf("%s cell shows %q, which no legend swatch shows", table, text)
			continue
		}
		for _, w := range strings.Fields(want) {
			if !slices.Contains(classes, w) {
				t.Errorf("%s cell %q has classes %v, its swatch %q", table, text, classes, want)
			}
		}
	}
	if !seen["cov"] || !seen["cap"] {
		t.Fatalf("cells of matrix %v, of capability table %v", seen["cov"], seen["cap"])
	}
	for _, say := range []string{"package \\ target", "package \\ GPU", "Columns are compile targets", "Columns are GPUs",
		"any library", "worst library", "<b>SP+</b> at sm_90 above and show <b>none</b> at 12.0 here"} {
		if !strings.Contains(page, say) {
			t.Errorf("the page does not say %q", say)
		}
	}
}
