package nixpipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReportDerivation builds the sample's reports with Nix (nix/report.nix,
// builder: the static binary): the redist-level one over both versions
// equals the library's golden, and the per-version one has no changes.
func TestReportDerivation(t *testing.T) {
	requireNix(t)
	all := strings.TrimSpace(buildSample(t, "report"))
	got, err := os.ReadFile(filepath.Join(all, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(repoRoot(), "lib", "report", "testdata", "sample-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s/report.json differs from lib/report/testdata/sample-report.json", all)
	}
	// The oldest release has no previous one: its report is it alone.
	one := strings.TrimSpace(buildSample(t, `"1.0.0".report`))
	single, err := os.ReadFile(filepath.Join(one, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(single), `"changes"`) || !strings.Contains(string(single), `"version": "1.0.0"`) || strings.Contains(string(single), `"version": "2.0.0"`) {
		t.Errorf("%s/report.json: want release 1.0.0 alone, without changes", one)
	}
	html, err := os.ReadFile(filepath.Join(one, "report.html"))
	if err != nil || !strings.Contains(string(html), "<h1>sample redistributables: 1.0.0</h1>") {
		t.Errorf("%s/report.html: %v", one, err)
	}
}

// TestReleaseReportAgainstPrevious builds the sample's 2.0.0 report through
// default.nix: it compares 2.0.0 with the previous release, 1.0.0, and names
// exactly the packages added and removed that `diff` prints for the two
// Nix-built aggregates.
func TestReleaseReportAgainstPrevious(t *testing.T) {
	requireNix(t)
	out := strings.TrimSpace(buildSample(t, `"2.0.0".report`))
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Releases []struct {
			Version string `json:"version"`
		} `json:"releases"`
		Changes *struct {
			Old             string   `json:"old"`
			New             string   `json:"new"`
			PackagesAdded   []string `json:"packagesAdded"`
			PackagesRemoved []string `json:"packagesRemoved"`
			Archives        []struct {
				Package string `json:"package"`
			} `json:"archives"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s/report.json: %v", out, err)
	}
	if r.Changes == nil {
		t.Fatalf("%s/report.json: no changes section", out)
	}
	if r.Changes.Old != "1.0.0" || r.Changes.New != "2.0.0" {
		t.Errorf("changes compare %s -> %s, want 1.0.0 -> 2.0.0", r.Changes.Old, r.Changes.New)
	}
	if n := len(r.Releases); n == 0 || r.Releases[n-1].Version != "2.0.0" {
		t.Errorf("releases %+v: want 2.0.0 the newest", r.Releases)
	}

	oldAgg := strings.TrimSpace(buildSample(t, `"1.0.0"`))
	newAgg := strings.TrimSpace(buildSample(t, `"2.0.0"`))
	code, stdout, stderr := runProgram(t, "diff", oldAgg, newAgg)
	if code != 0 {
		t.Fatalf("diff %s %s: exit %d: %s", oldAgg, newAgg, code, stderr)
	}
	text := diffSections(stdout)
	if len(text["Packages added"])+len(text["Packages removed"]) == 0 {
		t.Fatalf("diff prints no package added or removed between the sample's releases:\n%s", stdout)
	}
	var changed []string // packages with archive changes, as diff lists them
	for _, a := range r.Changes.Archives {
		changed = append(changed, a.Package)
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	for _, c := range []struct {
		section string
		report  []string
	}{
		{"Packages added", r.Changes.PackagesAdded},
		{"Packages removed", r.Changes.PackagesRemoved},
		{"Changed packages", changed},
	} {
		if !slices.Equal(c.report, text[c.section]) {
			t.Errorf("%s: report.json has %q, diff prints %q", c.section, c.report, text[c.section])
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), "<h2>Changes from 1.0.0 to 2.0.0</h2>") {
		t.Errorf("%s/report.html shows no changes: %v", out, err)
	}
}

// diffSections reads the `diff` command's text: section title → its
// top-level items ("- name"; the indented archive lines are left out).
func diffSections(text string) map[string][]string {
	sections := map[string][]string{}
	title := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			title = strings.TrimSuffix(line, ":")
		case strings.HasPrefix(line, "- ") && title != "":
			sections[title] = append(sections[title], strings.TrimPrefix(line, "- "))
		}
	}
	return sections
}
